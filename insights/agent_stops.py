"""Why the agent's runs stopped, per day: completed, truncated at a token limit, refused or
filtered, stopped on the step limit or an error, whoever spelled the stop reason
(traces.stop_reasons). A rise in truncated or refused runs is a failure mode that an answer
which looks right hides."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Count
from django.db.models.functions import TruncDay

from insights.agent_usage import WINDOW, agent_traces
from insights.charts import (
    Chart,
    bar_width,
    count_axis,
    day_stack_layout,
    empty_figure,
    plain,
    table_rows,
)
from traces.stop_reasons import UNCLEAN_KINDS, StopKind, stop_reason_normalize

DAYS = WINDOW.days
COLUMNS = ["day", "stop_kind", "traces"]
NOT_SAID = "not stated"
# Clean stops first, then the ones to look at; the same colour for a kind on every day.
KIND_ORDER = [StopKind.COMPLETED, StopKind.TOOL_CALL, StopKind.OTHER, *UNCLEAN_KINDS]
KIND_COLOURS = {
    StopKind.COMPLETED: "#2b8a3e",
    StopKind.TOOL_CALL: "#74b816",
    StopKind.OTHER: "#868e96",
    StopKind.TRUNCATED: "#e8590c",
    StopKind.REFUSED: "#c2255c",
    StopKind.STEP_LIMIT: "#f08c00",
    StopKind.ERROR: "#c92a2a",
    NOT_SAID: "#ced4da",
}


def stop_kind_rows() -> list[dict]:
    """Per day and stop kind: how many traces of the window stopped that way."""
    grouped = (
        agent_traces()
        .annotate(day=TruncDay("started_at"))
        .values("day", "stop_reason")
        .annotate(traces=Count("id"))
        .order_by("day")
    )
    sums: dict[tuple, int] = defaultdict(int)
    for row in grouped:
        kind = stop_reason_normalize(row["stop_reason"]) or NOT_SAID
        sums[(plain(row["day"]), str(kind))] += row["traces"]
    order = [str(kind) for kind in KIND_ORDER] + [NOT_SAID]
    return [
        {"day": day, "stop_kind": kind, "traces": traces}
        for (day, kind), traces in sorted(
            sums.items(), key=lambda i: (i[0][0], order.index(i[0][1]))
        )
    ]


def agent_stop_reason_chart() -> Chart:
    rows = stop_kind_rows()
    figure = empty_figure(f"No trace has started in the last {DAYS} days.")
    if rows:
        days = sorted({row["day"] for row in rows})
        counts = {(row["day"], row["stop_kind"]): row["traces"] for row in rows}
        kinds = [
            k for k in [*map(str, KIND_ORDER), NOT_SAID] if any(r["stop_kind"] == k for r in rows)
        ]
        largest = max(sum(counts.get((day, kind), 0) for kind in kinds) for day in days)
        data = [
            {
                "type": "bar",
                "name": StopKind(kind).label if kind != NOT_SAID else "Not stated",
                "x": days,
                "y": [counts.get((day, kind), 0) for day in days],
                "hovertemplate": "%{y:,} traces<extra>%{fullData.name}</extra>",
                "marker": {"color": KIND_COLOURS[kind]},
                "width": bar_width("day"),
            }
            for kind in kinds
        ]
        figure = {
            "data": data,
            "layout": day_stack_layout(days, "traces", count_axis(largest, "traces")),
        }
    unclean = sum(row["traces"] for row in rows if row["stop_kind"] in map(str, UNCLEAN_KINDS))
    total = sum(row["traces"] for row in rows)
    return Chart(
        key="agent_stop_reasons",
        title=f"How runs stopped per day: completed, truncated, refused, step limit, error "
        f"(last {DAYS} days)",
        columns=COLUMNS,
        rows=table_rows(rows, COLUMNS),
        figure=figure,
        note=(
            f"{unclean:,} of {total:,} traces stopped truncated, refused, on the step limit or "
            "on an error; the trace list's Stop filter lists them."
            if total
            else "No traces yet."
        ),
    )
