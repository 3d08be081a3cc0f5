from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts and API tokens"

    def ready(self):
        from accounts import (  # noqa: F401  (registers the token scheme and the receivers)
            receivers,
            schema,
        )
