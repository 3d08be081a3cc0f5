from django.apps import AppConfig


class MetricsConfig(AppConfig):
    name = "metrics"

    def ready(self):
        from metrics import receivers  # noqa: F401
