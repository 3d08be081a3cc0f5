"""Chart 1: how often the passes of a judge version disagree, week by week."""

from __future__ import annotations

import datetime as dt

from django.db.models import Count, F, FloatField, Max, Min, OuterRef, Q, Subquery
from django.db.models.functions import TruncWeek
from django.utils import timezone

from evalsite.insights.charts import PALETTE, Chart, empty_figure, layout, plain
from evalsite.insights.stats import wilson_interval
from judges.models import Judgment, ParseStatus, Verdict, VerdictStatus

# Two passes at temperature 0 disagree this often in published judge studies.
EXPECTED_BAND = (0.10, 0.15)
# The chart covers recent weeks, so its cost does not grow with the years of history.
WINDOW = dt.timedelta(weeks=26)


def judge_version_label(rubric: str, number: int, model: str) -> str:
    return f"{rubric} v{number} · {model}"


def flip_rate_weekly_rows() -> list[dict]:
    """Per judge version and week: verdicts with two or more scored passes, and flips."""
    spread = (
        Judgment.objects.filter(
            run_id=OuterRef("run_id"),
            trace_id=OuterRef("trace_id"),
            parse_status=ParseStatus.OK,
            score__isnull=False,
        )
        .values("run_id")
        .annotate(spread=Max("score") - Min("score"), scored=Count("id"))
    )
    rows = (
        Verdict.objects.filter(created_at__gte=timezone.now() - WINDOW)
        .exclude(status=VerdictStatus.FAILED)
        .annotate(
            spread=Subquery(spread.values("spread"), output_field=FloatField()),
            scored=Subquery(spread.values("scored")),
            week=TruncWeek("created_at"),
        )
        .filter(scored__gte=2)
        .values(
            "week",
            "rubric_version__rubric__name",
            "rubric_version__number",
            "config__model",
        )
        .annotate(
            verdicts=Count("id"),
            flips=Count("id", filter=Q(spread__gt=F("config__tolerance"))),
        )
        .order_by("week", "rubric_version__rubric__name", "rubric_version__number")
    )
    out = []
    for row in rows:
        low, high = wilson_interval(row["flips"], row["verdicts"])
        out.append(
            {
                "week": plain(row["week"]),
                "judge_version": judge_version_label(
                    row["rubric_version__rubric__name"],
                    row["rubric_version__number"],
                    row["config__model"],
                ),
                "verdicts": row["verdicts"],
                "flips": row["flips"],
                "flip_rate": row["flips"] / row["verdicts"],
                "ci_low": low,
                "ci_high": high,
            }
        )
    return out


def flip_rate_chart() -> Chart:
    rows = flip_rate_weekly_rows()
    columns = ["week", "judge_version", "verdicts", "flips", "flip_rate", "ci_low", "ci_high"]
    table = [[plain(r[c]) for c in columns] for r in rows]
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
                    "error_y": {
                        "type": "data",
                        "symmetric": False,
                        "array": [round(r["ci_high"] - r["flip_rate"], 4) for r in mine],
                        "arrayminus": [round(r["flip_rate"] - r["ci_low"], 4) for r in mine],
                    },
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
