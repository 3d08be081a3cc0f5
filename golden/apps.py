from django.apps import AppConfig


class GoldenConfig(AppConfig):
    name = "golden"

    def ready(self):
        from golden import receivers  # noqa: F401  (connects the reviews -> golden hand-off)
