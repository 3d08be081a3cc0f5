from django.apps import AppConfig


class InsightsConfig(AppConfig):
    """The overview and the reports; reads every stage, so it sits above all the apps."""

    name = "insights"

    def ready(self):
        from insights import receivers  # noqa: F401
        from insights.trace_filters import topic_filter
        from traces.filters import trace_filter_add
        from traces.retention import trace_relation_owned

        trace_filter_add("topic", topic_filter(), after="started_before")
        # A trace's topic membership goes with the trace.
        trace_relation_owned("topic_membership")
