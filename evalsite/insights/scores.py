"""Chart 3: how verdict scores spread per rubric, and which red flags fire."""

from __future__ import annotations

from django.db.models import Count

from evalsite.insights.charts import (
    PALETTE,
    Chart,
    count_axis,
    empty_figure,
    layout,
    plain,
    readable,
)
from evalsite.numbers import number_label
from judges.models import RedFlag, Verdict


def score_distribution_chart() -> Chart:
    rows = list(
        Verdict.objects.filter(score__isnull=False)
        .values("rubric_version__rubric__name", "score")
        .annotate(verdicts=Count("id"))
        .order_by("rubric_version__rubric__name", "score")
    )
    columns = ["rubric", "score", "verdicts"]
    table = [[r["rubric_version__rubric__name"], plain(r["score"]), r["verdicts"]] for r in rows]
    if not rows:
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
        lay["annotations"].append(
            {
                "text": rubric,
                "showarrow": False,
                "xref": "paper",
                "yref": "paper",
                "x": sum(domain) / 2,
                "y": 1.02,
                "yanchor": "bottom",
                "font": {"size": 11},
            }
        )
    return {"data": data, "layout": lay}


def red_flag_chart() -> Chart:
    labels = dict(RedFlag.Kind.choices)
    rows = list(RedFlag.objects.values("kind").annotate(flags=Count("id")).order_by("-flags"))
    columns = ["kind", "label", "flags"]
    # A kind whose label is its slug still reads as words on the axis.
    names = {kind: readable(labels.get(kind, kind)) for kind in (r["kind"] for r in rows)}
    table = [
        [r["kind"], names[r["kind"]][:1].upper() + names[r["kind"]][1:], r["flags"]] for r in rows
    ]
    if not rows:
        figure = empty_figure("No red flag has fired yet.")
    else:
        figure = {
            "data": [
                {
                    "type": "bar",
                    "orientation": "h",
                    "x": [r[2] for r in table],
                    "y": [r[1] for r in table],
                    "marker": {"color": "#D55E00"},
                }
            ],
            "layout": layout(
                "flags",
                "",
                margin={"l": 230, "r": 20, "t": 30, "b": 50},
                xaxis=count_axis(max(r[2] for r in table), "flags"),
            ),
        }
    return Chart(
        key="red_flags",
        title="Red flags per kind",
        columns=columns,
        rows=table,
        figure=figure,
        note="Deterministic trajectory checks that fired, over all traces.",
    )
