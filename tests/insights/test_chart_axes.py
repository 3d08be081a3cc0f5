"""Figures a fresh install draws: one day of data still gives bars width and cells a size."""

import pytest

from insights.agreement import judge_human_chart
from insights.charts import DAY_MS, count_axis, date_axis
from insights.cost import judge_cost_chart
from insights.evalruns import eval_run_chart
from insights.queue import queue_backlog_chart, queue_flow_chart
from insights.scores import score_distribution_chart
from insights.steps import component_accuracy_chart
from tests.insights.world import insights_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def one_day():
    insights_world(days=1)


def test_a_single_day_is_padded_to_a_readable_range():
    axis = date_axis(["2026-12-02"], "day")

    assert axis["type"] == "date" and axis["range"] == ["2026-12-01", "2026-12-03"]
    assert "range" not in date_axis([f"2026-11-{d:02}" for d in range(1, 20)], "day")


def test_counts_tick_in_whole_round_numbers_even_on_an_overlaying_axis():
    assert count_axis(3)["dtick"] == 1
    assert [count_axis(n)["dtick"] for n in (9, 33, 400, 12_345)] == [2, 10, 100, 5000]
    right = count_axis(9, overlaying="y", side="right")
    assert right["tickmode"] == "linear" and right["tick0"] == 0 and right["dtick"] == 2


def test_day_bars_have_an_explicit_width_on_one_day(one_day):
    for chart in (queue_flow_chart(), judge_cost_chart()):
        bars = [t for t in chart.figure["data"] if t["type"] == "bar"]
        assert bars, chart.key
        assert all(0 < bar["width"] < DAY_MS for bar in bars), chart.key
        assert "range" in chart.figure["layout"]["xaxis"], chart.key


def test_arrivals_and_resolutions_sit_side_by_side(one_day):
    arrivals, resolutions = queue_flow_chart().figure["data"][:2]

    assert arrivals["offset"] + arrivals["width"] == resolutions["offset"]


def test_a_lone_week_of_component_accuracy_is_a_category_cell(one_day):
    figure = component_accuracy_chart().figure

    [heatmap] = figure["data"]
    assert figure["layout"]["xaxis"]["type"] == "category"
    assert len(heatmap["x"]) == 1 and len(heatmap["x"][0]) == len("2026-11-30")
    assert figure["layout"]["xaxis"]["tickangle"] == 0


def test_each_rubric_scale_has_its_own_score_axis(one_day):
    figure = score_distribution_chart().figure

    axes = {trace["xaxis"] for trace in figure["data"]}
    assert len(axes) == len(figure["data"]) == 2
    assert all(label in ("0", "1") for label in figure["data"][1]["x"]) or all(
        label in ("0", "1") for label in figure["data"][0]["x"]
    )


def test_an_empty_confusion_cell_is_the_lightest(one_day):
    heatmap = judge_human_chart(resamples=0).figure["data"][0]

    low, high = heatmap["colorscale"][0][1], heatmap["colorscale"][-1][1]
    assert int(low[1:3], 16) > int(high[1:3], 16)


def test_backlog_labels_are_words_not_slugs(one_day):
    names = {trace["name"] for trace in queue_backlog_chart().figure["data"]}

    assert names and not any("_" in name for name in names)


def test_eval_runs_are_plotted_against_the_agent_version(one_day):
    figure = eval_run_chart().figure

    assert figure["data"][0]["x"][0] == figure["layout"]["xaxis"]["categoryarray"][0]
    assert figure["layout"]["xaxis"]["type"] == "category"


def test_a_long_legend_above_the_plot_gets_room_once():
    from insights.charts import Chart, layout

    data = [{"type": "scatter", "name": f"Judge version {n} · claude-sonnet-4-5"} for n in range(9)]
    chart = Chart("k", "t", [], [], {"data": data, "layout": layout("x", "y")})
    height, top = chart.figure["layout"]["height"], chart.figure["layout"]["margin"]["t"]
    assert top >= 9 * 19 and height > 340
    # rebuilt from the cache, it is not grown again
    again = Chart.from_dict(chart.as_dict())
    assert (again.figure["layout"]["height"], again.figure["layout"]["margin"]["t"]) == (
        height,
        top,
    )
    # and a single-series chart keeps its size
    single = Chart("k", "t", [], [], {"data": data[:1], "layout": layout("x", "y")})
    assert single.figure["layout"]["height"] == 340


def test_half_a_year_of_component_weeks_is_slanted_to_fit(one_day):
    from datetime import timedelta

    from django.utils import timezone

    from traces.models import Trace

    # A step counts in the week its trace started.
    with_tools = Trace.objects.filter(spans__kind="tool").exclude(spans__component="").distinct()
    for weeks_ago, trace in enumerate(with_tools.order_by("pk")[:10]):
        Trace.objects.filter(pk=trace.pk).update(
            started_at=timezone.now() - timedelta(weeks=weeks_ago)
        )

    figure = component_accuracy_chart().figure

    assert len(figure["data"][0]["x"]) > 6
    assert figure["layout"]["xaxis"]["tickangle"] == -45


def test_long_rubric_names_wrap_within_their_panel():
    from tests.factories import RubricFactory, RubricVersionFactory, TraceFactory, VerdictFactory

    long_name = "Refund policy compliance across every support channel"
    for name in (long_name, "Booking outcome", "Tone", "Tool choice"):
        version = RubricVersionFactory(rubric=RubricFactory(name=name))
        VerdictFactory(
            trace=TraceFactory(), rubric_version=version, run__rubric_version=version, score=1.0
        )

    titles = [a["text"] for a in score_distribution_chart().figure["layout"]["annotations"]]

    wrapped = titles[1]  # rubrics are in name order: Booking, Refund, Tone, Tool
    assert "<br>" in wrapped and wrapped.replace("<br>", " ") == long_name
    assert all(len(line) <= 66 // 4 for line in wrapped.split("<br>"))
    assert titles[0] == "Booking outcome"
