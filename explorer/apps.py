from django.apps import AppConfig


class ExplorerConfig(AppConfig):
    """The trace list, the trace page and the session pages show judges' verdicts and people's
    review items beside a trace's spans; reading every stage, it sits above all the apps."""

    name = "explorer"
