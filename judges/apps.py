from django.apps import AppConfig


class JudgesConfig(AppConfig):
    name = "judges"

    def ready(self):
        from judges.trajectory import receivers  # noqa: F401
