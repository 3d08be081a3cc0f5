"""The overview snapshot: every chart computed at once, cached for the page and the CSVs."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import contextmanager

from django.conf import settings
from django.core.cache import caches
from django.db import connection, transaction
from django.utils import timezone

from core.publish import publish_errors
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
from insights.sql import build_session_jit_off
from insights.steps import (
    COMPONENT_DAYS,
    LENGTH_DAYS,
    STEP_DAYS,
    component_accuracy_chart,
    compound_error_chart,
)

logger = logging.getLogger(__name__)

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


def _cache():
    return caches["insights"] if "insights" in settings.CACHES else caches["default"]


def _cache_call(method: str, *args, default=None, **kwargs):
    """The shared cache is Redis at scale; while it is away the page computes and serves its
    own figures (a miss), it does not fail."""
    try:
        return getattr(_cache(), method)(*args, **kwargs)
    except (*publish_errors(), OSError) as exc:  # Redis away, or a cache folder unwritable
        logger.warning("insights cache unavailable for %s: %s", method, exc)
        return default


def _key() -> str:
    # Two databases (say, two test runs) may share one cache directory; never mix their figures.
    return f"{SNAPSHOT_KEY}:{connection.settings_dict['NAME']}"


@contextmanager
def overview_build_session():
    """One transaction for all charts, so they agree with each other; PostgreSQL without JIT."""
    with transaction.atomic():
        build_session_jit_off()
        yield


def overview_snapshot_build() -> dict:
    """Compute every chart from the database now."""
    started = time.perf_counter()
    store = overview_daily_store()
    with overview_build_session():
        charts = [
            (builder(store) if key in INCREMENTAL_CHARTS else builder()).as_dict()
            for key, builder in CHART_BUILDERS.items()
        ]
    return {
        "built_at": timezone.now().isoformat(),
        "build_ms": round((time.perf_counter() - started) * 1000, 1),
        "charts": charts,
    }


def overview_snapshot_refresh() -> dict:
    """Rebuild the snapshot and store it where every web process finds it."""
    snapshot = overview_snapshot_build()
    _cache_call("set", _key(), snapshot, timeout=None)
    return snapshot


@contextmanager
def overview_refresh_lock(timeout: int):
    """Yield True to the one caller that may rebuild now; the lock expires if a worker dies."""
    key = f"{_key()}:lock"
    acquired = _cache_call("add", key, "1", timeout=timeout, default=False)
    try:
        yield acquired
    finally:
        if acquired:
            _cache_call("delete", key)


def overview_daily_store() -> DailyStore:
    return DailyStore(_cache_call, f"{SNAPSHOT_KEY}-days")


def overview_snapshot_clear() -> None:
    """Forget the snapshot and the stored days: the next build reads everything again."""
    _cache_call("delete", _key())
    daily_forget(overview_daily_store(), DAILY_PARTS)


def overview_snapshot_get() -> dict:
    """The latest snapshot; rebuilt here when there is none or it has grown too old."""
    snapshot = _cache_call("get", _key())
    if snapshot is not None:
        age = timezone.now() - timezone.datetime.fromisoformat(snapshot["built_at"])
        if age.total_seconds() <= settings.INSIGHTS_SNAPSHOT_MAX_AGE:
            return snapshot
    return overview_snapshot_refresh()


def overview_chart_get(key: str) -> Chart | None:
    """One chart of the latest snapshot, or None for an unknown key."""
    if key not in CHART_BUILDERS:
        return None
    for data in overview_snapshot_get()["charts"]:
        if data["key"] == key:
            return Chart.from_dict(data)
    return None
