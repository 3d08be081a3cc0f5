"""The agent dashboard's charts: each a table (its CSV) and a plotly figure drawn from it."""

from __future__ import annotations

from collections import defaultdict

from insights.agent_tools import tool_error_rows
from insights.agent_usage import (
    OTHER,
    WINDOW,
    series_names,
    usage_by_model_rows,
    usage_by_version_rows,
)
from insights.charts import (
    PALETTE,
    Chart,
    bar_width,
    count_axis,
    date_axis,
    day_stack_layout,
    empty_figure,
    interval_error_bars,
    layout,
    money_axis,
    share_axis,
    table_rows,
)

DAYS = WINDOW.days
VERSION_COLUMNS = [
    "day",
    "version",
    "traces",
    "failed_traces",
    "error_rate",
    "p50_ms",
    "p95_ms",
    "input_tokens",
    "output_tokens",
    "cost_usd",
]
MODEL_COLUMNS = ["day", "model", "traces", "input_tokens", "output_tokens", "cost_usd"]
TOOL_COLUMNS = ["tool", "calls", "errors", "error_rate", "low_95", "high_95"]
NO_TRACES = f"No trace has started in the last {DAYS} days."


def _summed(rows, name_key, fields, weight="traces"):
    """{series: {day: {field: sum}}} with small series folded into OTHER."""
    names = series_names(rows, name_key, weight)
    sums: dict[str, dict[str, dict[str, float]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(float))
    )
    for row in rows:
        cell = sums[names[row[name_key]]][row["day"]]
        for field in fields:
            cell[field] += float(row[field] or 0)
    order = sorted(sums, key=lambda name: (name == OTHER, name))
    return order, sums


def _colour(index: int, name: str) -> str:
    return "#999" if name == OTHER else PALETTE[index % len(PALETTE)]


def _stacked_bars(rows, name_key, field, *, hover, days) -> list[dict]:
    # Each field once: the plotted one may also be a hover field ("traces"), and summing
    # it twice drew every trace two times.
    fields = dict.fromkeys([field, "traces", "input_tokens", "output_tokens"])
    order, sums = _summed(rows, name_key, [f for f in fields if f in rows[0]])
    return [
        {
            "type": "bar",
            "name": name,
            "x": days,
            "y": [round(sums[name][day][field], 6) for day in days],
            "customdata": [
                [int(sums[name][day]["input_tokens"]), int(sums[name][day]["output_tokens"])]
                for day in days
            ],
            "hovertemplate": hover + "<extra>%{fullData.name}</extra>",
            "marker": {"color": _colour(index, name)},
            "width": bar_width("day"),
        }
        for index, name in enumerate(order)
    ]


def agent_volume_chart() -> Chart:
    rows = usage_by_version_rows()
    figure = empty_figure(NO_TRACES)
    if rows:
        days = sorted({row["day"] for row in rows})
        largest = max(sum(row["traces"] for row in rows if row["day"] == day) for day in days)
        figure = {
            "data": _stacked_bars(rows, "version", "traces", hover="%{y:,} traces", days=days),
            "layout": day_stack_layout(days, "traces", count_axis(largest, "traces")),
        }
    return Chart(
        key="agent_volume",
        title=f"Traces per day, by agent version (last {DAYS} days)",
        columns=VERSION_COLUMNS,
        rows=table_rows(rows, VERSION_COLUMNS),
        figure=figure,
        note=f"{sum(row['traces'] for row in rows):,} traces.",
    )


def agent_latency_chart() -> Chart:
    rows = usage_by_version_rows()
    figure = empty_figure(NO_TRACES)
    timed = [row for row in rows if row["p50_ms"] is not None]
    if timed:
        names = series_names(timed, "version")
        kept = sorted({name for name in names.values() if name != OTHER})
        data = []
        for index, version in enumerate(kept):
            own = [row for row in timed if row["version"] == version]
            for stat, dash in (("p50_ms", "solid"), ("p95_ms", "dot")):
                data.append(
                    {
                        "type": "scatter",
                        "mode": "lines+markers",
                        "name": version,
                        "legendgroup": version,
                        # One legend entry per version: its p95 line toggles with it.
                        "showlegend": stat == "p50_ms",
                        "x": [row["day"] for row in own],
                        "y": [row[stat] for row in own],
                        "line": {"color": PALETTE[index % len(PALETTE)], "dash": dash},
                        "hovertemplate": stat[:3] + " %{y:,.0f} ms<extra>%{fullData.name}</extra>",
                    }
                )
        days = sorted({row["day"] for row in timed})
        figure = {
            "data": data,
            "layout": layout(
                "day",
                "ms",
                xaxis=date_axis(days, "day"),
                yaxis={"title": {"text": "trace duration (ms)"}, "rangemode": "tozero"},
            ),
        }
    return Chart(
        key="agent_latency",
        title=f"Trace latency p50 (solid) and p95 (dotted) per day, by agent version "
        f"(last {DAYS} days)",
        columns=VERSION_COLUMNS,
        rows=table_rows(rows, VERSION_COLUMNS),
        figure=figure,
        note="From the first span's start to the last span's end. Only the seven busiest "
        "versions are drawn (percentiles of the rest cannot be summed); the CSV has all.",
    )


def agent_error_rate_chart() -> Chart:
    rows = usage_by_version_rows()
    figure = empty_figure(NO_TRACES)
    if rows:
        days = sorted({row["day"] for row in rows})
        order, sums = _summed(rows, "version", ["traces", "failed_traces"])
        data = []
        for index, name in enumerate(order):
            present = [day for day in days if sums[name][day]["traces"]]
            data.append(
                {
                    "type": "scatter",
                    "mode": "lines+markers",
                    "name": name,
                    "x": present,
                    "y": [
                        round(sums[name][d]["failed_traces"] / sums[name][d]["traces"], 4)
                        for d in present
                    ],
                    "customdata": [
                        [int(sums[name][d]["failed_traces"]), int(sums[name][d]["traces"])]
                        for d in present
                    ],
                    "hovertemplate": "%{y:.1%} (%{customdata[0]:,} of %{customdata[1]:,})"
                    "<extra>%{fullData.name}</extra>",
                    "line": {"color": _colour(index, name)},
                }
            )
        figure = {
            "data": data,
            "layout": layout(
                "day",
                "traces with an error",
                xaxis=date_axis(days, "day"),
                yaxis=share_axis("traces with an error"),
            ),
        }
    failed = sum(row["failed_traces"] for row in rows)
    total = sum(row["traces"] for row in rows)
    return Chart(
        key="agent_error_rate",
        title=f"Share of traces with an error span per day, by agent version (last {DAYS} days)",
        columns=VERSION_COLUMNS,
        rows=table_rows(rows, VERSION_COLUMNS),
        figure=figure,
        note=f"{failed:,} of {total:,} traces had an error span." if total else "No traces yet.",
    )


def _usage_chart(key, title, rows, name_key, field, columns, axis) -> Chart:
    figure = empty_figure(NO_TRACES)
    if rows:
        days = sorted({row["day"] for row in rows})
        money = field == "cost_usd"
        hover = (
            "$%{y:,.2f} · %{customdata[0]:,} in / %{customdata[1]:,} out tokens"
            if money
            else "%{y:,} tokens (%{customdata[0]:,} in / %{customdata[1]:,} out)"
        )
        if not money:
            rows = [{**row, "tokens": row["input_tokens"] + row["output_tokens"]} for row in rows]
            field = "tokens"
        yaxis = (
            money_axis(axis)
            if money
            else {"title": {"text": axis}, "tickformat": "~s", "rangemode": "tozero"}
        )
        figure = {
            "data": _stacked_bars(rows, name_key, field, hover=hover, days=days),
            "layout": day_stack_layout(days, axis, yaxis),
        }
    total_cost = sum(float(row["cost_usd"]) for row in rows)
    total_tokens = sum(row["input_tokens"] + row["output_tokens"] for row in rows)
    return Chart(
        key=key,
        title=title,
        columns=columns,
        rows=table_rows(rows, columns),
        figure=figure,
        note=f"${total_cost:,.2f} and {total_tokens:,} tokens, as the agent's spans reported them.",
    )


def agent_tokens_by_model_chart() -> Chart:
    return _usage_chart(
        "agent_tokens_by_model",
        f"The agent's tokens per day, by model (last {DAYS} days)",
        usage_by_model_rows(),
        "model",
        "tokens",
        MODEL_COLUMNS,
        "tokens",
    )


def agent_cost_by_model_chart() -> Chart:
    return _usage_chart(
        "agent_cost_by_model",
        f"The agent's own cost per day, by model (last {DAYS} days)",
        usage_by_model_rows(),
        "model",
        "cost_usd",
        MODEL_COLUMNS,
        "USD",
    )


def agent_cost_by_version_chart() -> Chart:
    return _usage_chart(
        "agent_cost_by_version",
        f"The agent's own cost per day, by agent version (last {DAYS} days)",
        usage_by_version_rows(),
        "version",
        "cost_usd",
        VERSION_COLUMNS,
        "USD",
    )


def tool_error_chart() -> Chart:
    rows = tool_error_rows()
    figure = empty_figure(f"No tool was called in the last {DAYS} days.")
    if rows:
        shown = list(reversed(rows))  # plotly draws the first category at the bottom
        figure = {
            "data": [
                {
                    "type": "bar",
                    "orientation": "h",
                    "name": "error rate",
                    "y": [row["tool"] for row in shown],
                    "x": [row["error_rate"] for row in shown],
                    "error_x": {
                        **interval_error_bars(shown, "error_rate", "low_95", "high_95"),
                        "color": "#555",
                    },
                    "customdata": [[row["errors"], row["calls"]] for row in shown],
                    "hovertemplate": "%{x:.1%}: %{customdata[0]:,} of %{customdata[1]:,} calls"
                    "<extra>%{y}</extra>",
                    "marker": {"color": PALETTE[3]},
                }
            ],
            "layout": layout(
                "share of calls that failed",
                "",
                height=max(340, 60 + 26 * len(rows)),
                margin={"l": 180, "r": 20, "t": 30, "b": 50},
                xaxis=share_axis("share of calls that failed (95% interval)"),
                yaxis={"automargin": True, "type": "category"},
                showlegend=False,
            ),
        }
    return Chart(
        key="tool_errors",
        title=f"Tool-call error rate per tool (last {DAYS} days)",
        columns=TOOL_COLUMNS,
        rows=table_rows(rows, TOOL_COLUMNS),
        figure=figure,
        note="A call fails when its span has an error status or its result opens with an "
        "error marker. Worst first; the bar is the 95% interval.",
    )
