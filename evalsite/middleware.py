from django.contrib.auth.middleware import LoginRequiredMiddleware

# API and OTLP requests authenticate with tokens inside DRF; pages need a session login.
TOKEN_AUTHENTICATED_PREFIXES = ("/api/", "/v1/")


class PageLoginRequiredMiddleware(LoginRequiredMiddleware):
    def process_view(self, request, view_func, view_args, view_kwargs):
        if request.path.startswith(TOKEN_AUTHENTICATED_PREFIXES):
            return None
        return super().process_view(request, view_func, view_args, view_kwargs)
