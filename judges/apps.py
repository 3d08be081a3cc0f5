from django.apps import AppConfig


class JudgesConfig(AppConfig):
    name = "judges"

    def ready(self):
        from judges import receivers  # noqa: F401
        from judges.retention import retention_declare
        from judges.trace_filters import verdict_filter
        from traces.filters import trace_filter_add

        # Traces offers these seams so it never reads judges' models itself.
        trace_filter_add("verdict", verdict_filter(), after="started_before")
        retention_declare()
