from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts and API tokens"

    def ready(self):
        # The token scheme's OpenAPI description is registered by the URL conf that serves
        # the schema (evalsite/urls.py): a worker never loads drf-spectacular's machinery.
        from accounts import receivers  # noqa: F401  (connects the receivers)
