from django.apps import AppConfig


class GoldenConfig(AppConfig):
    name = "golden"

    def ready(self):
        from golden import receivers  # noqa: F401  (connects the reviews -> golden hand-off)
        from golden.models import EvalTrial, GoldenExample
        from traces.retention import trace_keeper_add

        # A golden example's source trace and an eval run's trial traces stay for retention.
        trace_keeper_add(
            "golden_examples",
            GoldenExample._base_manager.all,
            via="source_trace",
            label="golden examples",
        )
        trace_keeper_add(
            "evaltrial", EvalTrial._base_manager.all, via="trace", label="eval run trials"
        )
