from django.apps import AppConfig


class DemoConfig(AppConfig):
    """The demo data and the commands that load it; writes through every app's services."""

    name = "demo"
