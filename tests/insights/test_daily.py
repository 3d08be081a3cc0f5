"""Per-day aggregates: a rebuild reads only the days that changed, and adds up to a full read."""

import datetime as dt

import pytest
from django.core.cache import caches
from django.utils import timezone

from insights.daily import DailyPart, daily_forget, daily_rows
from insights.overview import (
    overview_daily_store,
    overview_snapshot_build,
    overview_snapshot_clear,
)
from insights.scores import SCORE_DAYS, score_distribution_chart
from judges.models import Verdict
from tests.factories import JudgeRunFactory, RubricFactory, RubricVersionFactory, VerdictFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def run():
    version = RubricVersionFactory(rubric=RubricFactory(name="Outcome"))
    return JudgeRunFactory(rubric_version=version)


def verdict(run, score: float, days_ago: int) -> Verdict:
    made = VerdictFactory(run=run, status="agreed", score=score)
    when = timezone.now() - dt.timedelta(days=days_ago)
    Verdict.objects.filter(pk=made.pk).update(created_at=when)
    return made


@pytest.fixture
def recorded_ranges():
    """The score part, with every day range it reads from the database recorded."""
    ranges: list[tuple] = []

    def rows(start, end):
        ranges.append((start, end))
        return SCORE_DAYS.rows(start, end)

    part = DailyPart("score_distribution_recorded", rows, SCORE_DAYS.sources)
    daily_forget(overview_daily_store(), [part])  # nothing known from an earlier test
    return part, ranges


def totals(rows) -> dict:
    out: dict = {}
    for row in rows:
        out[row["score"]] = out.get(row["score"], 0) + row["verdicts"]
    return out


def test_a_rebuild_reads_only_recent_days_and_keeps_the_old_ones(run, recorded_ranges):
    # given a first build over verdicts of 40 and 3 days ago
    part, ranges = recorded_ranges
    store = overview_daily_store()
    verdict(run, 1.0, days_ago=40)
    verdict(run, 0.0, days_ago=3)
    assert totals(daily_rows(part, store)) == {1.0: 1, 0.0: 1}
    assert ranges == [(None, None)]
    # when a verdict lands today and the part is read again
    verdict(run, 1.0, days_ago=0)
    rows = daily_rows(part, store)
    # then only today's range (and yesterday's, near midnight) came from the database
    assert totals(rows) == {1.0: 2, 0.0: 1}
    (start, end), *rest = ranges[1:]
    assert not rest and start >= timezone.now() - dt.timedelta(days=2)
    assert end > timezone.now()


def test_a_row_written_late_for_an_old_day_rebuilds_that_day(run, recorded_ranges):
    part, ranges = recorded_ranges
    store = overview_daily_store()
    verdict(run, 1.0, days_ago=20)
    daily_rows(part, store)
    # when a verdict stamped 20 days ago is written now
    verdict(run, 0.0, days_ago=20)
    rows = daily_rows(part, store)
    # then its day is read again with the recent days, and counted
    assert totals(rows) == {1.0: 1, 0.0: 1}
    assert any(
        start is not None and start <= timezone.now() - dt.timedelta(days=19)
        for start, _ in ranges[1:]
    )


def test_an_entry_the_cache_lost_is_read_again_whole(run, recorded_ranges):
    part, ranges = recorded_ranges
    store = overview_daily_store()
    verdict(run, 1.0, days_ago=10)
    daily_rows(part, store)
    store.delete(part)
    assert totals(daily_rows(part, store)) == {1.0: 1}
    assert ranges[-1] == (None, None)


def test_every_day_is_read_again_after_the_full_rebuild_interval(run, recorded_ranges, settings):
    part, ranges = recorded_ranges
    store = overview_daily_store()
    verdict(run, 1.0, days_ago=10)
    daily_rows(part, store)
    # when an old row is edited in place (no new id, no recent day) and the interval has passed
    Verdict.objects.update(score=0.0)
    settings.INSIGHTS_FULL_REBUILD_SECONDS = 0
    # then everything is read again and the edit shows
    assert totals(daily_rows(part, store)) == {0.0: 1}
    assert ranges[-1] == (None, None)


def test_the_incremental_chart_equals_a_full_read(run):
    store = overview_daily_store()
    for days_ago, score in ((60, 1.0), (8, 0.0), (1, 1.0)):
        verdict(run, score, days_ago)
    score_distribution_chart(store)
    verdict(run, 0.0, days_ago=0)
    verdict(run, 1.0, days_ago=30)
    assert score_distribution_chart(store).rows == score_distribution_chart().rows
    assert score_distribution_chart().rows == [["Outcome", 0.0, 2], ["Outcome", 1.0, 3]]


def test_clearing_the_snapshot_forgets_the_days(run):
    verdict(run, 1.0, days_ago=5)
    overview_snapshot_build()
    overview_snapshot_clear()
    cache = caches["insights"]
    assert cache.get(overview_daily_store().key(SCORE_DAYS)) is None
