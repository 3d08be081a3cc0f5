from django.apps import AppConfig


class InsightsConfig(AppConfig):
    """The overview and the reports; reads every stage, so it sits above all the apps."""

    name = "insights"
