"""The periodic task precomputes the overview; the page reads that snapshot until it is old."""

import datetime as dt

import pytest
from django.utils import timezone

from insights import overview
from insights.overview import overview_snapshot_get
from insights.tasks import insights_overview_refresh_task
from tests.factories import VerdictFactory

pytestmark = pytest.mark.django_db


def verdict_count(snapshot) -> int:
    [chart] = [c for c in snapshot["charts"] if c["key"] == "score_distribution"]
    return sum(row[2] for row in chart["rows"])


def test_page_reads_the_snapshot_the_task_stored():
    VerdictFactory(status="agreed", score=1.0)
    insights_overview_refresh_task()
    VerdictFactory(status="agreed", score=0.0)
    assert verdict_count(overview_snapshot_get()) == 1
    insights_overview_refresh_task()
    assert verdict_count(overview_snapshot_get()) == 2


def test_an_old_snapshot_is_rebuilt_by_the_page(settings, monkeypatch):
    VerdictFactory(status="agreed", score=1.0)
    insights_overview_refresh_task()
    VerdictFactory(status="agreed", score=0.0)
    later = timezone.now() + dt.timedelta(seconds=settings.INSIGHTS_SNAPSHOT_MAX_AGE + 1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    assert verdict_count(overview_snapshot_get()) == 2


def test_a_refresh_already_running_is_not_started_twice():
    VerdictFactory(status="agreed", score=1.0)
    insights_overview_refresh_task()
    VerdictFactory(status="agreed", score=0.0)
    with overview.overview_refresh_lock(60) as acquired:
        assert acquired
        insights_overview_refresh_task()  # skipped: another build holds the lock
    assert verdict_count(overview_snapshot_get()) == 1
    insights_overview_refresh_task()
    assert verdict_count(overview_snapshot_get()) == 2
