"""Chart 1: how often the passes of a judge version disagree, week by week."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from django.db.models import Count, FloatField, Max, Min, OuterRef, Subquery
from django.utils import timezone

from core.stats import wilson_interval
from insights.charts import (
    PALETTE,
    Chart,
    date_axis,
    empty_figure,
    interval_error_bars,
    layout,
    plain,
    table_rows,
)
from insights.daily import (
    DailyPart,
    DailyStore,
    daily_rows,
    day_of,
    week_of,
    within_days,
)
from judges.models import Judgment, ParseStatus, Verdict, VerdictStatus

# Two passes at temperature 0 disagree this often in published judge studies.
EXPECTED_BAND = (0.10, 0.15)
# The chart covers recent weeks, so its cost does not grow with the years of history.
WINDOW = dt.timedelta(weeks=26)


def judge_version_label(rubric: str, number: int, model: str) -> str:
    return f"{rubric} v{number} · {model}"


def _flip_day_rows(start, end):
    """Per day, judge version, tolerance and spread of scored passes: verdicts made then."""
    # The gap between the scored passes of the verdict's run and trace; NULL with fewer than
    # two scored passes. Grouped on (it takes few values), so the database computes it once.
    spread = (
        Judgment.objects.filter(
            run_id=OuterRef("run_id"),
            trace_id=OuterRef("trace_id"),
            parse_status=ParseStatus.OK,
            score__isnull=False,
        )
        .values("run_id")
        .annotate(scored=Count("id"), spread=Max("score") - Min("score"))
        .filter(scored__gte=2)
        .values("spread")
    )
    verdicts = Verdict.objects.exclude(status=VerdictStatus.FAILED).annotate(
        spread=Subquery(spread, output_field=FloatField())
    )
    return (
        within_days(verdicts, "created_at", start, end)
        .values(
            "day",
            "rubric_version__rubric__name",
            "rubric_version__number",
            "config__model",
            "config__tolerance",
            "spread",
        )
        .annotate(n=Count("id"))
        .order_by()
    )


FLIP_DAYS = DailyPart("flip_rate", _flip_day_rows, ((Verdict, "created_at"),))


def flip_rate_weekly_rows(store: DailyStore | None = None) -> list[dict]:
    """Per judge version and week: verdicts with two or more scored passes, and flips."""
    since = week_of(timezone.localdate() - WINDOW)
    groups = [
        {**row, "week": week_of(day_of(row["day"]))} for row in daily_rows(FLIP_DAYS, store, since)
    ]
    counts: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])
    for group in groups:
        if group["spread"] is None:
            continue
        key = (
            plain(group["week"]),
            judge_version_label(
                group["rubric_version__rubric__name"],
                group["rubric_version__number"],
                group["config__model"],
            ),
        )
        counts[key][0] += group["n"]
        counts[key][1] += group["n"] if group["spread"] > group["config__tolerance"] else 0
    out = []
    for (week, version), (verdicts, flips) in sorted(counts.items()):
        low, high = wilson_interval(flips, verdicts)
        out.append(
            {
                "week": week,
                "judge_version": version,
                "verdicts": verdicts,
                "flips": flips,
                "flip_rate": flips / verdicts,
                "ci_low": low,
                "ci_high": high,
            }
        )
    return out


def flip_rate_chart(store: DailyStore | None = None) -> Chart:
    rows = flip_rate_weekly_rows(store)
    columns = ["week", "judge_version", "verdicts", "flips", "flip_rate", "ci_low", "ci_high"]
    table = table_rows(rows, columns, plain)
    if not rows:
        figure = empty_figure("No verdict with two scored passes yet.")
    else:
        traces = []
        versions = sorted({r["judge_version"] for r in rows})
        for index, version in enumerate(versions):
            mine = [r for r in rows if r["judge_version"] == version]
            traces.append(
                {
                    "type": "scatter",
                    "mode": "lines+markers",
                    "name": version,
                    "x": [r["week"] for r in mine],
                    "y": [round(r["flip_rate"], 4) for r in mine],
                    "error_y": interval_error_bars(mine, "flip_rate", "ci_low", "ci_high"),
                    "customdata": [[r["flips"], r["verdicts"]] for r in mine],
                    "hovertemplate": "%{y:.1%} (%{customdata[0]} of %{customdata[1]})"
                    "<extra>%{fullData.name}</extra>",
                    "marker": {"color": PALETTE[index % len(PALETTE)]},
                    "line": {"color": PALETTE[index % len(PALETTE)]},
                }
            )
        band = {
            "type": "rect",
            "xref": "paper",
            "x0": 0,
            "x1": 1,
            "yref": "y",
            "y0": EXPECTED_BAND[0],
            "y1": EXPECTED_BAND[1],
            "fillcolor": "#009E73",
            "opacity": 0.12,
            "line": {"width": 0},
        }
        figure = {
            "data": traces,
            "layout": layout(
                "week",
                "flip rate (95% Wilson interval)",
                xaxis=date_axis([r[0] for r in table], "week"),
                shapes=[band],
                yaxis={"title": {"text": "flip rate (95% Wilson)"}, "tickformat": ".0%"},
            ),
        }
    return Chart(
        key="flip_rate",
        title="Judge flip rate per version, weekly (last 26 weeks)",
        columns=columns,
        rows=table,
        figure=figure,
        note="Share of verdicts whose passes disagree beyond the config's tolerance; "
        "the shaded band is the 10-15% the literature expects.",
    )
