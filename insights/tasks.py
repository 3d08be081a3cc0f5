"""Periodic work of insights: the overview's snapshot, topic builds, the silent-rule check."""

from celery import shared_task
from django.conf import settings

from insights.agent_dashboard import AGENT_DASHBOARD
from insights.judging_health import silent_rules_check
from insights.overview import overview_refresh_lock, overview_snapshot_refresh
from traces.models import Trace


@shared_task(ignore_result=True)
def insights_overview_refresh_task() -> None:
    # A build slower than the beat interval must not pile up behind itself.
    with overview_refresh_lock(settings.INSIGHTS_REFRESH_SECONDS * 5) as acquired:
        if acquired:
            overview_snapshot_refresh()


@shared_task(ignore_result=True)
def insights_agent_dashboard_refresh_task() -> None:
    with AGENT_DASHBOARD.refresh_lock(settings.INSIGHTS_REFRESH_SECONDS * 5) as acquired:
        if acquired:
            AGENT_DASHBOARD.refresh()


@shared_task(ignore_result=True)
def topics_build_task() -> int:
    """Group every project's recent traces into topics (bounded by TOPICS_MAX_TRACES each)."""
    # Imported here: topics load scikit-learn and SciPy (about 120 MiB), which a worker that
    # never builds topics (a judge worker) should not carry.
    from insights.topics import topics_build_all, topics_build_lock

    with topics_build_lock(settings.TOPICS_BUILD_SECONDS * 2) as acquired:
        if not acquired:
            return 0
        return len(topics_build_all())


@shared_task(ignore_result=True)
def judging_silent_rules_check_task() -> int:
    """Alert on live online rules that judged nothing while traces came."""
    return len(silent_rules_check())


@shared_task(ignore_result=True)
def topics_build_missing_task() -> int:
    """The first build of projects that have traces and no topics yet."""
    from insights.topics import topics_build_all, topics_build_lock

    with topics_build_lock(settings.TOPICS_BUILD_SECONDS * 2) as acquired:
        if not acquired:
            return 0
        return len(topics_build_all(missing_only=True))


@shared_task(acks_late=True, ignore_result=True)
def topic_assign_task(trace_id: int) -> bool:
    """Place a settled trace in a topic of an embeddings build (its embedding is a call)."""
    from insights.topics import trace_topic_assign

    trace = Trace.objects.filter(pk=trace_id).first()
    return bool(trace and trace_topic_assign(trace))
