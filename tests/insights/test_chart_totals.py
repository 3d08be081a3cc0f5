"""Every chart's drawn totals equal a plain count of the rows it draws.

A chart that sums a field twice, or drops a series, draws bars that disagree with its own
note and CSV; each chart is checked here against a count written without the chart's code."""

from decimal import Decimal

import pytest
from django.db.models import Sum

from insights.agent_dashboard import AGENT_DASHBOARD
from insights.overview import overview_snapshot_build
from judges.models import Judgment, Verdict
from metrics.models import RedFlag
from reviews.models import Annotation, ReviewItem, ReviewStatus
from traces.models import Feedback, Span, SpanKind, SpanStatus, Trace

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def agent_world(module_world):
    # The agent's own usage, as ingest would have filled it in from the spans.
    for index, trace in enumerate(module_world["traces"]):
        Trace.objects.filter(pk=trace.pk).update(
            agent_name="support-agent",
            agent_version="1.4.0" if index % 2 else "1.5.0",
            model="claude-haiku-4-5" if index % 3 else "claude-sonnet-4-5",
            input_tokens=1000 + index,
            output_tokens=100,
            cost_usd=Decimal("0.0125"),
            error_count=trace.spans.filter(status=SpanStatus.ERROR).count(),
        )


@pytest.fixture
def charts(agent_world):
    snapshot = overview_snapshot_build()
    built = {chart["key"]: chart for chart in snapshot["charts"]}
    for key, builder in AGENT_DASHBOARD.builders.items():
        built[key] = builder().as_dict()
    return built


def _traces(chart, kind=None):
    return [t for t in chart["figure"]["data"] if kind is None or t["type"] == kind]


def _sum(values) -> float:
    return sum(float(v) for v in values if v is not None)


def _drawn(chart, kind="bar", axis="y") -> float:
    return sum(_sum(t[axis]) for t in _traces(chart, kind))


def test_agent_volume_bars_sum_to_the_trace_count(charts):
    assert Trace.objects.count() == 24
    assert _drawn(charts["agent_volume"]) == 24
    assert charts["agent_volume"]["note"] == "24 traces."


def test_agent_error_rate_counts_each_failed_trace_once(charts):
    traces = _traces(charts["agent_error_rate"], "scatter")
    assert (
        sum(c[0] for t in traces for c in t["customdata"])
        == Trace.objects.filter(error_count__gt=0).count()
    )
    assert sum(c[1] for t in traces for c in t["customdata"]) == Trace.objects.count()


@pytest.mark.parametrize("key", ["agent_cost_by_model", "agent_cost_by_version"])
def test_agent_cost_bars_sum_to_the_stored_cost(charts, key):
    total = Trace.objects.aggregate(total=Sum("cost_usd"))["total"]
    assert _drawn(charts[key]) == pytest.approx(float(total))
    tokens_in = sum(c[0] for t in _traces(charts[key], "bar") for c in t["customdata"])
    assert tokens_in == Trace.objects.aggregate(total=Sum("input_tokens"))["total"]


def test_agent_token_bars_sum_to_the_stored_tokens(charts):
    totals = Trace.objects.aggregate(i=Sum("input_tokens"), o=Sum("output_tokens"))
    assert _drawn(charts["agent_tokens_by_model"]) == totals["i"] + totals["o"]


def test_agent_latency_draws_one_point_per_day_and_version(charts):
    chart = charts["agent_latency"]
    days_and_versions = {(r[0], r[1]) for r in chart["rows"]}
    p50 = [t for t in _traces(chart, "scatter") if t["showlegend"]]
    assert sum(len(t["x"]) for t in p50) == len(days_and_versions)


def test_tool_error_chart_counts_each_tool_call_once(charts):
    data = _traces(charts["tool_errors"], "bar")[0]["customdata"]
    tools = Span.objects.filter(kind=SpanKind.TOOL)
    assert sum(calls for _, calls in data) == tools.count()
    assert sum(errors for errors, _ in data) == tools.filter(status=SpanStatus.ERROR).count()


def test_flip_rate_counts_each_verdict_once(charts):
    data = [c for t in _traces(charts["flip_rate"], "scatter") for c in t["customdata"]]
    assert sum(verdicts for _, verdicts in data) == Verdict.objects.count()
    assert sum(flips for flips, _ in data) == Verdict.objects.filter(status="disputed").count()


def test_score_distribution_counts_each_scored_verdict_once(charts):
    scored = Verdict.objects.filter(score__isnull=False).count()
    assert _drawn(charts["score_distribution"]) == scored


def test_red_flag_bars_count_each_flag_once(charts):
    assert _drawn(charts["red_flags"], axis="x") == RedFlag.objects.count()


def test_backlog_counts_each_open_item_once(charts):
    assert (
        _drawn(charts["queue_backlog"])
        == ReviewItem.objects.filter(status=ReviewStatus.OPEN).count()
    )


def test_queue_flow_counts_each_arrival_and_resolution_once(charts):
    bars = {t["name"]: _sum(t["y"]) for t in _traces(charts["queue_flow"], "bar")}
    assert bars["arrivals"] == ReviewItem.objects.count()
    assert bars["resolutions"] == ReviewItem.objects.filter(resolved_at__isnull=False).count()


def test_annotator_bars_count_each_live_annotation_once(charts):
    assert _drawn(charts["annotators"]) == Annotation.objects.filter(undone_at=None).count()


def test_judge_cost_bars_sum_to_the_stored_cost(charts):
    total = Judgment.objects.aggregate(total=Sum("cost_usd"))["total"]
    assert _drawn(charts["judge_cost"]) == pytest.approx(float(total))


def test_component_accuracy_counts_each_tool_step_once(charts):
    heatmap = _traces(charts["component_accuracy"], "heatmap")[0]
    steps = sum(_sum(row) for row in heatmap["customdata"])
    assert steps == Span.objects.filter(kind=SpanKind.TOOL).count()


def test_compound_error_counts_each_trace_once(charts):
    assert _drawn(charts["compound_error"]) == Trace.objects.count()


def test_judge_vs_people_verdict_matrix_counts_each_resolved_item_once(charts):
    chart = charts["judge_vs_people"]
    verdict_rows = [r for r in chart["rows"] if r[1] == "verdict"]
    drawn = sum(r[3] for r in verdict_rows)
    resolved = ReviewItem.objects.filter(resolved_score__isnull=False, verdict__isnull=False)
    assert drawn == resolved.count()


def test_eval_runs_draw_one_point_per_run(charts):
    from golden.models import EvalRun

    outcome = next(t for t in _traces(charts["eval_runs"]) if t["name"] == "outcome score")
    assert len(outcome["y"]) == EvalRun.objects.count()


def test_feedback_bars_count_each_thumb_once(charts):
    bars = {t["name"]: _sum(t["y"]) for t in _traces(charts["feedback"], "bar")}
    thumbs = Feedback.objects.filter(kind="thumbs")
    assert bars["thumbs up"] == thumbs.filter(value=1).count()
    assert -bars["thumbs down"] == thumbs.filter(value=0).count()
