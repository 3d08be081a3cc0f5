"""Judging cost per day, rubric and model, and what caching saved."""

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from insights.cost import judge_cost_chart, judge_cost_rows
from tests.factories import JudgeConfigFactory, JudgeRunFactory, JudgmentFactory, TraceFactory

pytestmark = pytest.mark.django_db
# A recent day at 09:00 UTC, inside the charts' window.
DAY = (timezone.now() - dt.timedelta(days=30)).replace(hour=9, minute=0, second=0, microsecond=0)
NEXT_DAY = DAY + dt.timedelta(days=1)


def call(run, *, cost, cached=False, cache_read=0, when=DAY):
    return JudgmentFactory(
        run=run,
        trace=TraceFactory(),
        completed_at=when,
        input_tokens=1000,
        output_tokens=100,
        cache_read_tokens=cache_read,
        cost_usd=Decimal(cost),
        served_from_cache=cached,
    )


def test_tokens_money_and_savings_per_day_rubric_and_model():
    run = JudgeRunFactory(config=JudgeConfigFactory(name="sonnet", model="claude-sonnet-4-5"))
    call(run, cost="0.010000")
    call(run, cost="0.020000", cache_read=2000)
    call(run, cost="0", cached=True)
    call(run, cost="0.010000", when=NEXT_DAY)
    rows = judge_cost_rows()
    first = rows[0]
    assert (first["day"], first["calls"], first["cached_calls"]) == (DAY.date().isoformat(), 3, 1)
    assert first["input_tokens"] == 3000 and first["output_tokens"] == 300
    assert first["cost_usd"] == pytest.approx(0.03)
    # the cache hit would have cost the mean paid call of its day: 0.03 / 2
    assert first["request_cache_saved_usd"] == pytest.approx(0.015)
    # 2000 cached input tokens at $3.00 instead of $0.30 per million
    assert first["prompt_cache_saved_usd"] == pytest.approx(2000 * 2.70 / 1_000_000)
    assert rows[1]["calls"] == 1
    assert "$0.04 spent" in judge_cost_chart().note


def test_models_are_kept_apart():
    call(JudgeRunFactory(config=JudgeConfigFactory(name="a", model="claude-haiku-4-5")), cost="1")
    call(JudgeRunFactory(config=JudgeConfigFactory(name="b", model="claude-opus-4-1")), cost="2")
    assert sorted((r["model"], r["cost_usd"]) for r in judge_cost_rows()) == [
        ("claude-haiku-4-5", 1.0),
        ("claude-opus-4-1", 2.0),
    ]
