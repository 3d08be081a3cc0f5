"""Charts 6 and 7: where the agent fails per component, and how step errors compound."""

from __future__ import annotations

import datetime as dt

from django.db.models import Count, Exists, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from insights.charts import PALETTE, Chart, count_axis, empty_figure, layout, plain, table_rows
from insights.daily import (
    DailyPart,
    DailyStore,
    daily_rows,
    day_of,
    days_of,
    week_of,
    within_days,
)
from metrics.models import RedFlag, RedFlagCheck
from traces.models import Span, SpanKind, SpanStatus, Trace

# A step fails when its tool/agent call errored or a trajectory red flag fired on it.
STEP_FAILED = Q(status=SpanStatus.ERROR) | Q(red_flags__isnull=False)
WINDOW = dt.timedelta(weeks=26)


# A day of these parts is the day its trace started: the trace list's index finds a day's
# traces, and spans or red flags arriving late for an old trace change that day.
TRACE_DAY_SOURCES = (
    (Trace, "started_at"),
    (Span, "trace__started_at"),
    (RedFlag, "trace__started_at"),
)


def _red_flags_checked(since) -> set:
    """Days of traces checked again since then: a check that finds fewer flags deletes rows."""
    return days_of(RedFlagCheck.objects.filter(checked_at__gte=since), "trace__started_at")


def _component_day_rows(start, end):
    """Per component and day its trace started: steps and failed steps."""
    return (
        within_days(
            Span.objects.filter(kind__in=[SpanKind.TOOL, SpanKind.AGENT]).exclude(component=""),
            "trace__started_at",
            start,
            end,
        )
        .values("component", "day")
        .annotate(
            steps=Count("id", distinct=True),
            failed=Count("id", distinct=True, filter=STEP_FAILED),
        )
        .order_by()
    )


COMPONENT_DAYS = DailyPart(
    "component_accuracy", _component_day_rows, TRACE_DAY_SOURCES, changed=_red_flags_checked
)


def component_week_rows(store: DailyStore | None = None) -> list[dict]:
    """Per component and week: steps, failed steps and accuracy (1 - failed share)."""
    totals: dict[tuple, list[int]] = {}
    since = week_of(timezone.localdate() - WINDOW)
    for row in daily_rows(COMPONENT_DAYS, store, since):
        total = totals.setdefault((row["component"], week_of(day_of(row["day"]))), [0, 0])
        total[0] += row["steps"]
        total[1] += row["failed"]
    return [
        {
            "component": component,
            "week": plain(week),
            "steps": steps,
            "failed": failed,
            "accuracy": 1 - failed / steps,
        }
        for (component, week), (steps, failed) in sorted(totals.items())
    ]


def component_accuracy_chart(store: DailyStore | None = None) -> Chart:
    rows = component_week_rows(store)
    columns = ["component", "week", "steps", "failed", "accuracy"]
    table = table_rows(rows, columns, plain)
    if not rows:
        figure = empty_figure("No span has been attributed to a component yet.")
    else:
        weeks = sorted({r["week"] for r in rows})
        # Worst components on top: that is where a lead looks first.
        overall: dict[str, list[int]] = {}
        for r in rows:
            total = overall.setdefault(r["component"], [0, 0])
            total[0] += r["steps"]
            total[1] += r["failed"]
        components = sorted(overall, key=lambda c: 1 - overall[c][1] / overall[c][0], reverse=True)
        cell = {(r["component"], r["week"]): r for r in rows}
        z = [
            [round(cell[(c, w)]["accuracy"], 4) if (c, w) in cell else None for w in weeks]
            for c in components
        ]
        steps = [
            [cell[(c, w)]["steps"] if (c, w) in cell else 0 for w in weeks] for c in components
        ]
        figure = {
            "data": [
                {
                    "type": "heatmap",
                    # Weeks as categories: a date axis gives a lone week's cell no width.
                    "x": [plain(w) for w in weeks],
                    "y": components,
                    "z": z,
                    "customdata": steps,
                    "zmin": 0,
                    "zmax": 1,
                    "colorscale": [[0, "#b3261e"], [0.5, "#f0d58a"], [1, "#1e7a3c"]],
                    "hovertemplate": "%{y}, %{x}: %{z:.1%} of %{customdata} steps<extra></extra>",
                    "colorbar": {"tickformat": ".0%"},
                }
            ],
            "layout": layout(
                "week",
                "",
                xaxis={
                    "type": "category",
                    "title": {"text": "week starting"},
                    # Half a year of weeks side by side only fits slanted.
                    "tickangle": -45 if len(weeks) > CROWDED_WEEKS else 0,
                    "automargin": True,
                },
                margin={"l": 200, "r": 20, "t": 40, "b": 50},
                height=max(300, 28 * len(components) + 100),
            ),
        }
    return Chart(
        key="component_accuracy",
        title="Component accuracy per week (last 26 weeks)",
        columns=columns,
        rows=table,
        figure=figure,
        note="Share of a component's steps with no error and no red flag, by the week "
        "their trace started.",
    )


CROWDED_WEEKS = 6


def _step_day_rows(start, end):
    """Per day its trace started: tool steps and failed tool steps."""
    return (
        within_days(Span.objects.filter(kind=SpanKind.TOOL), "trace__started_at", start, end)
        .values("day")
        .annotate(
            steps=Count("id", distinct=True), failed=Count("id", distinct=True, filter=STEP_FAILED)
        )
        .order_by()
    )


STEP_DAYS = DailyPart("step_success", _step_day_rows, TRACE_DAY_SOURCES, changed=_red_flags_checked)


def step_success_rate(store: DailyStore | None = None) -> tuple[float | None, int, int]:
    """The measured per-step success rate p over all tool steps: (p, steps, failed)."""
    rows = daily_rows(STEP_DAYS, store)
    steps = sum(r["steps"] for r in rows)
    failed = sum(r["failed"] for r in rows)
    if not steps:
        return None, 0, 0
    return 1 - failed / steps, steps, failed


def _length_day_rows(start, end):
    """Per day and trajectory length (tool steps): traces started then, and clean ones."""
    tool_steps = (
        Span.objects.filter(trace_id=OuterRef("pk"), kind=SpanKind.TOOL)
        .values("trace_id")
        .annotate(n=Count("id"))
        .values("n")
    )
    return (
        within_days(Trace.objects.all(), "started_at", start, end)
        .annotate(
            steps=Coalesce(Subquery(tool_steps, output_field=IntegerField()), Value(0)),
            flagged=Exists(RedFlag.objects.filter(trace_id=OuterRef("pk"))),
            errored=Exists(Span.objects.filter(trace_id=OuterRef("pk"), status=SpanStatus.ERROR)),
        )
        .values("day", "steps")
        .annotate(
            traces=Count("id"),
            clean=Count("id", filter=Q(flagged=False, errored=False)),
        )
        .order_by()
    )


LENGTH_DAYS = DailyPart(
    "trajectory_lengths", _length_day_rows, TRACE_DAY_SOURCES, changed=_red_flags_checked
)


def trajectory_length_rows(store: DailyStore | None = None) -> list[dict]:
    """Per trajectory length (tool steps): traces, and those that ran clean."""
    totals: dict[int, list[int]] = {}
    for row in daily_rows(LENGTH_DAYS, store):
        if row["steps"] > 0:
            total = totals.setdefault(row["steps"], [0, 0])
            total[0] += row["traces"]
            total[1] += row["clean"]
    return [
        {"steps": steps, "traces": traces, "clean": clean}
        for steps, (traces, clean) in sorted(totals.items())
    ]


def compound_error_chart(store: DailyStore | None = None) -> Chart:
    p, steps, failed = step_success_rate(store)
    lengths = trajectory_length_rows(store)
    longest = max([r["steps"] for r in lengths] + [10])
    columns = ["steps", "expected_clean_rate", "traces", "clean_traces", "observed_clean_rate"]
    by_length = {r["steps"]: r for r in lengths}
    table = []
    for n in range(1, longest + 1):
        row = by_length.get(n, {"traces": 0, "clean": 0})
        table.append(
            [
                n,
                plain(p**n) if p is not None else None,
                row["traces"],
                row["clean"],
                plain(row["clean"] / row["traces"]) if row["traces"] else None,
            ]
        )
    if p is None:
        figure = empty_figure("No tool step recorded yet.")
    else:
        ns = [r[0] for r in table]
        figure = {
            "data": [
                {
                    "type": "bar",
                    "name": "traces of this length",
                    "x": ns,
                    "y": [r[2] for r in table],
                    "yaxis": "y2",
                    "marker": {"color": "#56B4E9", "opacity": 0.45},
                },
                {
                    "type": "scatter",
                    "mode": "lines",
                    "name": f"p^n with p = {p:.3f}",
                    "x": ns,
                    "y": [r[1] for r in table],
                    "line": {"color": PALETTE[3]},
                },
                {
                    "type": "scatter",
                    "mode": "markers",
                    "name": "observed clean runs",
                    "x": ns,
                    "y": [r[4] for r in table],
                    "marker": {"color": PALETTE[0], "size": 8},
                },
            ],
            "layout": layout(
                "steps n",
                "clean-run rate",
                yaxis={
                    "title": {"text": "clean-run rate"},
                    "range": [0, 1.02],
                    "tickformat": ".0%",
                },
                margin={"l": 60, "r": 70, "t": 40, "b": 50},
                yaxis2=count_axis(
                    max(r[2] for r in table), "traces", overlaying="y", side="right", showgrid=False
                ),
            ),
        }
    note = (
        f"p = {p:.3f} per step from {steps:,} tool steps ({failed:,} failed); "
        f"at p = 0.9 ten steps run clean {0.9**10:.0%} of the time."
        if p is not None
        else "No tool step recorded yet."
    )
    return Chart(
        key="compound_error",
        title="Compound error: p^n against trajectory length",
        columns=columns,
        rows=table,
        figure=figure,
        note=note,
    )
