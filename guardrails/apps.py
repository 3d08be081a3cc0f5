from django.apps import AppConfig


class GuardrailsConfig(AppConfig):
    name = "guardrails"

    def ready(self):
        from guardrails import receivers  # noqa: F401
