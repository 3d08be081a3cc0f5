from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ApiTokenScheme(OpenApiAuthenticationExtension):
    """Describes the per-user API token in the OpenAPI schema."""

    target_class = "accounts.authentication.ApiTokenAuthentication"
    name = "apiToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A per-user API token; `x-api-key: TOKEN` works too, and Basic "
            "auth with the token as password, its username a project's slug or empty.",
        }
