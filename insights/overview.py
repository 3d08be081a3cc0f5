"""The overview snapshot: every chart computed at once, cached for the page and the CSVs."""

from __future__ import annotations

from collections.abc import Callable

from insights.agreement import AGREEMENT_DAYS, judge_human_chart
from insights.charts import Chart
from insights.check_flips import check_flip_chart
from insights.cost import COST_DAYS, judge_cost_chart
from insights.daily import DailyStore, daily_forget
from insights.evalruns import eval_run_chart
from insights.feedback import FEEDBACK_DAYS, feedback_chart
from insights.flips import FLIP_DAYS, flip_rate_chart
from insights.queue import (
    ANNOTATION_DAYS,
    ARRIVAL_DAYS,
    PEER_PAIR_DAYS,
    RESOLUTION_DAYS,
    annotator_chart,
    queue_backlog_chart,
    queue_flow_chart,
)
from insights.scores import (
    GUARDRAIL_BLOCK_DAYS,
    RED_FLAG_DAYS,
    SCORE_DAYS,
    red_flag_chart,
    score_distribution_chart,
)
from insights.snapshots import ChartSnapshot, cache_call, snapshot_build_session
from insights.steps import (
    COMPONENT_DAYS,
    LENGTH_DAYS,
    STEP_DAYS,
    component_accuracy_chart,
    compound_error_chart,
)

SNAPSHOT_KEY = "overview-snapshot-v2"

# Page order; the key of each is also its CSV name.
CHART_BUILDERS: dict[str, Callable[[], Chart]] = {
    "flip_rate": flip_rate_chart,
    "check_flip_rate": check_flip_chart,
    "judge_vs_people": judge_human_chart,
    "score_distribution": score_distribution_chart,
    "red_flags": red_flag_chart,
    "queue_backlog": queue_backlog_chart,
    "queue_flow": queue_flow_chart,
    "annotators": annotator_chart,
    "judge_cost": judge_cost_chart,
    "component_accuracy": component_accuracy_chart,
    "compound_error": compound_error_chart,
    "eval_runs": eval_run_chart,
    "feedback": feedback_chart,
}


# Charts that read per-day aggregates from the cache (insights/daily.py) and their parts.
# The backlog counts the items open now (through the queue index) and eval runs are few.
INCREMENTAL_CHARTS = {
    "flip_rate",
    "judge_vs_people",
    "score_distribution",
    "red_flags",
    "queue_flow",
    "annotators",
    "judge_cost",
    "component_accuracy",
    "compound_error",
    "feedback",
}
DAILY_PARTS = (
    COST_DAYS,
    FLIP_DAYS,
    SCORE_DAYS,
    COMPONENT_DAYS,
    STEP_DAYS,
    LENGTH_DAYS,
    AGREEMENT_DAYS,
    RED_FLAG_DAYS,
    GUARDRAIL_BLOCK_DAYS,
    ARRIVAL_DAYS,
    RESOLUTION_DAYS,
    ANNOTATION_DAYS,
    PEER_PAIR_DAYS,
    FEEDBACK_DAYS,
)


class OverviewSnapshot(ChartSnapshot):
    """The incremental charts also read the days stored by earlier builds."""

    def _charts(self) -> list[Chart]:
        store = overview_daily_store()
        return [
            builder(store) if key in INCREMENTAL_CHARTS else builder()
            for key, builder in self.builders.items()
        ]


OVERVIEW = OverviewSnapshot(SNAPSHOT_KEY, CHART_BUILDERS)
# The session the charts build in; bench/overview_page.py times each chart inside it.
overview_build_session = snapshot_build_session


def overview_snapshot_build() -> dict:
    """Compute every chart from the database now."""
    return OVERVIEW.build()


def overview_snapshot_refresh() -> dict:
    """Rebuild the snapshot and store it where every web process finds it."""
    return OVERVIEW.refresh()


def overview_refresh_lock(timeout: int):
    """Yield True to the one caller that may rebuild now; the lock expires if a worker dies."""
    return OVERVIEW.refresh_lock(timeout)


def overview_daily_store() -> DailyStore:
    return DailyStore(cache_call, f"{SNAPSHOT_KEY}-days")


def overview_snapshot_clear() -> None:
    """Forget the snapshot and the stored days: the next build reads everything again."""
    OVERVIEW.clear()
    daily_forget(overview_daily_store(), DAILY_PARTS)


def overview_snapshot_get() -> dict:
    """The latest snapshot; rebuilt here when there is none or it has grown too old."""
    return OVERVIEW.get()


def overview_chart_get(key: str) -> Chart | None:
    """One chart of the latest snapshot, or None for an unknown key."""
    return OVERVIEW.chart(key)
    for data in overview_snapshot_get()["charts"]:
        if data["key"] == key:
            return Chart.from_dict(data)
    return None
