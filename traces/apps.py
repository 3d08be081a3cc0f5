from django.apps import AppConfig


class TracesConfig(AppConfig):
    name = "traces"

    def ready(self):
        from traces import receivers  # noqa: F401
