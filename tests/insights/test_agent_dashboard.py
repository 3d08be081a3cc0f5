"""The agent dashboard's figures: volume, latency, errors, tokens, cost and failing tools."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from insights.agent_dashboard import AGENT_DASHBOARD
from insights.agent_tools import tool_error_rows
from insights.agent_usage import (
    MAX_SERIES,
    OTHER,
    series_names,
    usage_by_model_rows,
    usage_by_version_rows,
)
from tests.factories import SpanFactory, TraceFactory

pytestmark = pytest.mark.django_db


def agent_trace(*, day=0, seconds=1.0, version="1.0", model="claude-sonnet-4-5", **fields):
    start = timezone.now().replace(hour=12, minute=0, second=0, microsecond=0) - timedelta(days=day)
    return TraceFactory(
        agent_name="support-agent",
        agent_version=version,
        model=model,
        started_at=start,
        ended_at=start + timedelta(seconds=seconds),
        **fields,
    )


def test_each_day_and_version_counts_traces_errors_latency_tokens_and_cost():
    # given ten traces of version 1.0 today (1..10 s, two with errors) and one of 2.0
    for n in range(1, 11):
        agent_trace(
            seconds=n,
            error_count=1 if n in (3, 7) else 0,
            input_tokens=100,
            output_tokens=10,
            cost_usd=Decimal("0.25"),
        )
    agent_trace(version="2.0", seconds=4, day=1)
    # when
    rows = {(r["day"], r["version"]): r for r in usage_by_version_rows()}
    # then
    today = timezone.now().date().isoformat()
    row = rows[(today, "support-agent 1.0")]
    assert row["traces"] == 10 and row["failed_traces"] == 2 and row["error_rate"] == 0.2
    assert row["p50_ms"] == pytest.approx(5500, abs=1)
    assert row["p95_ms"] == pytest.approx(9550, abs=1)
    assert row["input_tokens"] == 1000 and row["output_tokens"] == 100
    assert row["cost_usd"] == pytest.approx(2.5)
    yesterday = (timezone.now() - timedelta(days=1)).date().isoformat()
    assert rows[(yesterday, "support-agent 2.0")]["p50_ms"] == pytest.approx(4000, abs=1)


def test_traces_outside_the_window_and_held_out_ones_are_left_out():
    agent_trace()
    agent_trace(day=45)
    agent_trace(held_out=True)

    assert sum(row["traces"] for row in usage_by_version_rows()) == 1
    assert sum(row["traces"] for row in usage_by_model_rows()) == 1


def test_tokens_and_cost_are_split_by_model():
    agent_trace(model="claude-haiku-4-5", input_tokens=500, cost_usd=Decimal("0.01"))
    agent_trace(model="claude-haiku-4-5", input_tokens=700, cost_usd=Decimal("0.02"))
    agent_trace(model="gpt-4o", input_tokens=50, cost_usd=Decimal("0.5"))

    rows = {row["model"]: row for row in usage_by_model_rows()}

    assert rows["claude-haiku-4-5"]["input_tokens"] == 1200
    assert rows["claude-haiku-4-5"]["cost_usd"] == pytest.approx(0.03)
    assert rows["gpt-4o"]["traces"] == 1


def test_tool_error_rate_per_tool_is_worst_first_with_an_interval():
    trace = agent_trace()
    for n in range(10):
        SpanFactory(trace=trace, tool_name="issue_refund", status="error" if n < 4 else "ok")
    for _ in range(5):
        SpanFactory(trace=trace, tool_name="lookup_order", status="ok")
    SpanFactory(trace=trace, kind="llm", tool_name="", name="chat", status="error")
    hidden = agent_trace(held_out=True)
    SpanFactory(trace=hidden, tool_name="secret_tool", status="error")

    rows = tool_error_rows()

    assert [row["tool"] for row in rows] == ["issue_refund", "lookup_order"]
    refund = rows[0]
    assert (refund["calls"], refund["errors"], refund["error_rate"]) == (10, 4, 0.4)
    assert refund["low_95"] < 0.4 < refund["high_95"]
    assert rows[1]["error_rate"] == 0.0


def test_only_the_busiest_series_keep_their_names():
    rows = [{"version": f"v{n}", "traces": n} for n in range(1, MAX_SERIES + 4)]

    names = series_names(rows, "version")

    assert len({name for name in names.values()}) == MAX_SERIES
    assert names["v1"] == OTHER and names[f"v{MAX_SERIES + 3}"] == f"v{MAX_SERIES + 3}"


def test_every_chart_is_built_and_drawable_and_the_snapshot_is_reused(
    django_assert_num_queries,
):
    for day in range(3):
        trace = agent_trace(day=day, version=f"1.{day}", input_tokens=10, cost_usd=Decimal("1"))
        SpanFactory(trace=trace, tool_name="lookup_order")
    # when built once
    snapshot = AGENT_DASHBOARD.get()
    # then every chart has something to draw and a table for its CSV
    assert [chart["key"] for chart in snapshot["charts"]] == list(AGENT_DASHBOARD.builders)
    for chart in snapshot["charts"]:
        assert chart["figure"]["data"], chart["key"]
        assert chart["rows"], chart["key"]
    # and a second read comes from the cache, without a query
    with django_assert_num_queries(0):
        assert AGENT_DASHBOARD.get()["built_at"] == snapshot["built_at"]


def test_an_empty_dashboard_says_there_is_nothing_yet():
    snapshot = AGENT_DASHBOARD.get()

    for chart in snapshot["charts"]:
        assert chart["figure"]["data"] == []
        assert chart["figure"]["layout"]["annotations"][0]["text"].startswith("No ")
