from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    name = "reviews"

    def ready(self):
        from reviews import (
            calibration_receivers,  # noqa: F401  (judge calibration samples)
            pairwise_judge_receivers,  # noqa: F401  (the pairwise judge's answers)
            receivers,  # noqa: F401  (connects the judges -> reviews hand-off)
        )
        from reviews.blind import trace_ids_blind_for
        from reviews.models import ReviewItem
        from reviews.trace_filters import review_item_filter
        from traces.filters import trace_filter_add
        from traces.retention import session_keeper_add, trace_keeper_add
        from traces.selectors import trace_blind_rule_set

        # Traces and judges offer these seams so they never read reviews' models themselves.
        trace_filter_add("has_review_item", review_item_filter(), after="started_before")
        trace_blind_rule_set(trace_ids_blind_for)
        # A review item, open or settled, keeps its trace and conversation: it holds labels.
        trace_keeper_add(
            "review_items",
            ReviewItem._base_manager.all,
            via="trace",
            label="review items (people's labels)",
        )
        session_keeper_add(
            "review_items",
            ReviewItem._base_manager.all,
            via="session",
            label="review items on its session",
        )
