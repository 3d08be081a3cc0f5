"""Component accuracy per week, and the compound-error curve with observed lengths."""

import datetime as dt

import pytest
from django.utils import timezone

from insights.steps import (
    component_week_rows,
    compound_error_chart,
    step_success_rate,
    trajectory_length_rows,
)
from metrics.models import RedFlag
from tests.factories import ToolSpanFactory, TraceFactory

pytestmark = pytest.mark.django_db
# A recent Monday at 09:00 UTC, inside the chart's window.
_AGO = timezone.now() - dt.timedelta(weeks=4)
WEEK = (_AGO - dt.timedelta(days=_AGO.weekday())).replace(hour=9, minute=0, second=0, microsecond=0)
NEXT_WEEK = WEEK + dt.timedelta(days=7)


def trajectory(tools, *, failed=(), flagged=(), when=WEEK):
    """A trace with one tool span per name; indexes in failed error, in flagged get a flag."""
    trace = TraceFactory(started_at=when)
    for index, tool in enumerate(tools):
        span = ToolSpanFactory(
            trace=trace,
            name=tool,
            component=f"tool:{tool}",
            started_at=when,
            status="error" if index in failed else "ok",
            position=index,
        )
        if index in flagged:
            RedFlag.objects.create(trace=trace, span=span, kind="loop")
            RedFlag.objects.create(trace=trace, span=span, kind="hallucinated_parameter")
    return trace


def test_component_accuracy_counts_errored_and_flagged_steps_once():
    trajectory(["search_flights", "book_flight"], failed={1})
    trajectory(["search_flights", "book_flight"], flagged={0})
    trajectory(["search_flights", "book_flight"], when=NEXT_WEEK)
    rows = {(r["component"], r["week"]): r for r in component_week_rows()}
    week, next_week = WEEK.date().isoformat(), NEXT_WEEK.date().isoformat()
    assert rows[("tool:search_flights", week)]["steps"] == 2
    assert rows[("tool:search_flights", week)]["failed"] == 1  # two flags, one step
    assert rows[("tool:book_flight", week)]["accuracy"] == pytest.approx(0.5)
    assert rows[("tool:book_flight", next_week)]["accuracy"] == pytest.approx(1.0)


def test_step_success_rate_and_observed_clean_runs_by_length():
    trajectory(["get_order", "issue_refund"])
    trajectory(["get_order", "issue_refund"], failed={1})
    trajectory(["run_tests", "read_file", "edit_file", "run_tests"], flagged={3})
    trajectory(["get_order"])
    p, steps, failed = step_success_rate()
    assert (steps, failed) == (9, 2)
    assert p == pytest.approx(7 / 9)
    lengths = {r["steps"]: r for r in trajectory_length_rows()}
    assert lengths[1] == {"steps": 1, "traces": 1, "clean": 1}
    assert lengths[2] == {"steps": 2, "traces": 2, "clean": 1}
    assert lengths[4] == {"steps": 4, "traces": 1, "clean": 0}


def test_compound_curve_is_p_to_the_n():
    trajectory(["a"] * 9)
    trajectory(["a"], failed={0})
    chart = compound_error_chart()
    p = 0.9
    by_n = {row[0]: row for row in chart.rows}
    assert by_n[10][1] == pytest.approx(p**10, abs=1e-6)  # about 35% clean over ten steps
    assert by_n[9][2] == 1 and by_n[1][2] == 1
    assert "p = 0.900" in chart.note
