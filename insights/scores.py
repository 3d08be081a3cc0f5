"""Chart 3: how verdict scores spread per rubric, and which red flags fire."""

from __future__ import annotations

import textwrap
from collections import defaultdict

from django.db.models import Count

from core.numbers import number_label
from guardrails.models import GuardrailDecision
from insights.charts import (
    PALETTE,
    Chart,
    count_axis,
    empty_figure,
    layout,
    panel_title,
    plain,
    readable,
)
from insights.daily import DailyPart, DailyStore, daily_rows, days_of, within_days
from judges.models import Verdict
from metrics.models import RedFlag, RedFlagCheck

# Characters of panel title that fit across a half-width overview card at 1400 px.
PANEL_TITLE_CHARS = 66


def _score_day_rows(start, end):
    """Per day, rubric and score: the scored verdicts made that day."""
    return (
        within_days(Verdict.objects.filter(score__isnull=False), "created_at", start, end)
        .values("day", "rubric_version__rubric__name", "score")
        .annotate(verdicts=Count("id"))
        .order_by()
    )


SCORE_DAYS = DailyPart("score_distribution", _score_day_rows, ((Verdict, "created_at"),))


def score_distribution_chart(store: DailyStore | None = None) -> Chart:
    totals: dict[tuple[str, float], int] = defaultdict(int)
    for row in daily_rows(SCORE_DAYS, store):
        totals[(row["rubric_version__rubric__name"], row["score"])] += row["verdicts"]
    columns = ["rubric", "score", "verdicts"]
    table = [[rubric, plain(score), n] for (rubric, score), n in sorted(totals.items())]
    if not table:
        figure = empty_figure("No scored verdict yet.")
    else:
        figure = _score_panels(table)
    return Chart(
        key="score_distribution",
        title="Score distribution per rubric",
        columns=columns,
        rows=table,
        figure=figure,
        note="Reconciled verdict scores; disputed verdicts without a score are left out.",
    )


def _score_panels(table: list[list]) -> dict:
    """One panel per rubric, each on its own score axis: 0-1, 1-5 and 0-10 do not share one."""
    rubrics = sorted({r[0] for r in table})
    width = 1 / len(rubrics)
    title_chars = max(10, PANEL_TITLE_CHARS // len(rubrics))
    title_lines = max(len(textwrap.wrap(r, title_chars)) for r in rubrics)
    lay = layout("", "", showlegend=False, annotations=[])
    data = []
    for index, rubric in enumerate(rubrics, start=1):
        suffix = "" if index == 1 else str(index)
        mine = [r for r in table if r[0] == rubric]
        domain = [(index - 1) * width + 0.02, index * width - 0.02]
        lay[f"xaxis{suffix}"] = {
            "domain": domain,
            "type": "category",
            "title": {"text": "score"},
            "anchor": f"y{suffix}",
        }
        lay[f"yaxis{suffix}"] = count_axis(
            max(r[2] for r in mine), "verdicts" if index == 1 else "", anchor=f"x{suffix}"
        )
        data.append(
            {
                "type": "bar",
                "name": rubric,
                "x": [number_label(r[1]) for r in mine],
                "y": [r[2] for r in mine],
                "xaxis": f"x{suffix}",
                "yaxis": f"y{suffix}",
                "marker": {"color": PALETTE[(index - 1) % len(PALETTE)]},
            }
        )
        # Wrapped to its panel's width, so neighbouring titles never run together.
        title = "<br>".join(textwrap.wrap(rubric, title_chars)) or rubric
        lay["annotations"].append(panel_title(title, domain))
    lay["margin"] = {**lay.get("margin", {}), "t": 24 + 14 * title_lines}
    return {"data": data, "layout": lay}


def _red_flag_day_rows(start, end):
    """Per day the trace arrived, and kind: the trace's stored flags. A check stores a trace's
    flags in place of the earlier ones, so the day a trace's flags sit on never moves."""
    return (
        within_days(RedFlag.objects.all(), "trace__created_at", start, end)
        .values("day", "kind")
        .annotate(n=Count("id"))
        .order_by()
    )


def _red_flags_checked(since) -> set:
    """Days of traces checked again since then: a check that finds fewer flags deletes rows."""
    return days_of(RedFlagCheck.objects.filter(checked_at__gte=since), "trace__created_at")


RED_FLAG_DAYS = DailyPart(
    "red_flags",
    _red_flag_day_rows,
    ((RedFlag, "trace__created_at"),),
    changed=_red_flags_checked,
)


def _block_day_rows(start, end):
    """Per day and check: the tool calls guardrails blocked."""
    return (
        within_days(
            GuardrailDecision.objects.filter(decision=GuardrailDecision.Decision.BLOCK),
            "created_at",
            start,
            end,
        )
        .values("day", "blocked_by")
        .annotate(n=Count("id"))
        .order_by()
    )


GUARDRAIL_BLOCK_DAYS = DailyPart(
    "guardrail_blocks", _block_day_rows, ((GuardrailDecision, "created_at"),)
)


def red_flag_chart(store: DailyStore | None = None) -> Chart:
    """Flags found on settled traces, beside the calls guardrails blocked (recorded ones)."""
    labels = dict(RedFlag.Kind.choices)
    flags: dict[str, int] = defaultdict(int)
    for row in daily_rows(RED_FLAG_DAYS, store):
        flags[row["kind"]] += row["n"]
    blocks: dict[str, int] = defaultdict(int)
    for row in daily_rows(GUARDRAIL_BLOCK_DAYS, store):
        blocks[row["blocked_by"]] += row["n"]
    kinds = sorted(set(flags) | set(blocks), key=lambda k: (-flags.get(k, 0), -blocks.get(k, 0), k))
    columns = ["kind", "label", "flags", "runtime_blocks"]
    # A kind whose label is its slug still reads as words on the axis.
    names = {k: readable(labels.get(k, k)) for k in kinds}
    table = [
        [k, names[k][:1].upper() + names[k][1:], flags.get(k, 0), blocks.get(k, 0)] for k in kinds
    ]
    if not table:
        figure = empty_figure("No red flag has fired yet.")
    else:
        series = [("after the trace", 2, "#D55E00"), ("blocked at runtime", 3, "#0072B2")]
        figure = {
            "data": [
                {
                    "type": "bar",
                    "orientation": "h",
                    "name": name,
                    "x": [r[column] for r in table],
                    "y": [r[1] for r in table],
                    "marker": {"color": color},
                }
                for name, column, color in series
                if any(r[column] for r in table)
            ],
            "layout": layout(
                "count",
                "",
                barmode="group",
                showlegend=True,
                margin={"l": 230, "r": 20, "t": 30, "b": 50},
                xaxis=count_axis(max(max(r[2], r[3]) for r in table), "count"),
            ),
        }
    return Chart(
        key="red_flags",
        title="Red flags per kind",
        columns=columns,
        rows=table,
        figure=figure,
        note="Deterministic trajectory checks that fired over all traces, and the tool calls "
        "runtime guardrails blocked (decisions recorded by the agent).",
    )
