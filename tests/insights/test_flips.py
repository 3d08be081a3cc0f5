"""Flip rate per judge version and week, with counts and a Wilson interval."""

import datetime as dt

import pytest
from django.utils import timezone
from scipy.stats import binomtest

from insights.flips import flip_rate_chart, flip_rate_weekly_rows
from judges.models import Verdict
from tests.factories import (
    JudgeConfigFactory,
    JudgeRunFactory,
    JudgmentFactory,
    RubricVersionFactory,
    TraceFactory,
    VerdictFactory,
)

pytestmark = pytest.mark.django_db


def judged(run, scores, status="agreed", parse_status="ok"):
    """One trace judged with one pass per score; returns its verdict."""
    trace = TraceFactory()
    for index, score in enumerate(scores):
        JudgmentFactory(
            trace=trace, run=run, pass_index=index, score=score, parse_status=parse_status
        )
    return VerdictFactory(trace=trace, run=run, status=status, score=scores[0])


def test_counts_flips_and_gives_the_wilson_interval():
    run = JudgeRunFactory()
    for i in range(10):
        judged(run, [1.0, 0.0] if i < 2 else [1.0, 1.0])
    # not counted: one scored pass only, and a failed verdict
    judged(run, [1.0])
    judged(run, [1.0, 0.0], status="failed")
    [row] = flip_rate_weekly_rows()
    assert (row["verdicts"], row["flips"]) == (10, 2)
    assert row["flip_rate"] == pytest.approx(0.2)
    reference = binomtest(2, 10).proportion_ci(method="wilson")
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((reference.low, reference.high))


def test_gaps_within_the_config_tolerance_are_not_flips():
    version = RubricVersionFactory(score_type="range", score_min=1, score_max=5)
    config = JudgeConfigFactory(name="tolerant", tolerance=1.0)
    run = JudgeRunFactory(rubric_version=version, config=config)
    judged(run, [4.0, 3.0])
    judged(run, [4.0, 2.0])
    [row] = flip_rate_weekly_rows()
    assert (row["verdicts"], row["flips"]) == (2, 1)


def test_unparseable_pass_does_not_count_as_a_score():
    run = JudgeRunFactory()
    verdict = judged(run, [1.0])
    JudgmentFactory(
        trace=verdict.trace, run=run, pass_index=1, score=None, parse_status="unparseable"
    )
    assert flip_rate_weekly_rows() == []


def test_weeks_and_versions_are_kept_apart():
    run, other = JudgeRunFactory(), JudgeRunFactory()
    old = judged(run, [1.0, 0.0])
    Verdict.objects.filter(pk=old.pk).update(created_at=timezone.now() - dt.timedelta(days=14))
    judged(run, [1.0, 1.0])
    judged(other, [0.0, 0.0])
    rows = flip_rate_weekly_rows()
    assert len(rows) == 3
    assert sorted(r["flips"] for r in rows) == [0, 0, 1]
    chart = flip_rate_chart()
    assert len(chart.figure["data"]) == 2  # one line per judge version
    assert chart.figure["layout"]["shapes"][0]["y0"] == 0.10
    assert chart.figure["layout"]["shapes"][0]["y1"] == 0.15


def test_verdicts_older_than_the_window_are_left_out():
    run = JudgeRunFactory()
    old = judged(run, [1.0, 0.0])
    Verdict.objects.filter(pk=old.pk).update(created_at=timezone.now() - dt.timedelta(weeks=30))
    judged(run, [1.0, 1.0])
    [row] = flip_rate_weekly_rows()
    assert (row["verdicts"], row["flips"]) == (1, 0)
