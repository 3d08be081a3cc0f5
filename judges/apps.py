from django.apps import AppConfig


class JudgesConfig(AppConfig):
    name = "judges"

    def ready(self):
        from judges import receivers  # noqa: F401
        from judges.trajectory import receivers as trajectory_receivers  # noqa: F401
