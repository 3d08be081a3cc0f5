"""Chart 3: how verdict scores spread per rubric, and which red flags fire."""

from __future__ import annotations

from django.db.models import Count

from evalsite.insights.charts import PALETTE, Chart, empty_figure, layout, plain
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
        rubrics = sorted({r[0] for r in table})
        data = [
            {
                "type": "bar",
                "name": rubric,
                "x": [str(r[1]) for r in table if r[0] == rubric],
                "y": [r[2] for r in table if r[0] == rubric],
                "marker": {"color": PALETTE[i % len(PALETTE)]},
            }
            for i, rubric in enumerate(rubrics)
        ]
        figure = {"data": data, "layout": layout("score", "verdicts", barmode="group")}
    return Chart(
        key="score_distribution",
        title="Score distribution per rubric",
        columns=columns,
        rows=table,
        figure=figure,
        note="Reconciled verdict scores; disputed verdicts without a score are left out.",
    )


def red_flag_chart() -> Chart:
    labels = dict(RedFlag.Kind.choices)
    rows = list(RedFlag.objects.values("kind").annotate(flags=Count("id")).order_by("-flags"))
    columns = ["kind", "label", "flags"]
    table = [[r["kind"], labels.get(r["kind"], r["kind"]), r["flags"]] for r in rows]
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
            "layout": layout("flags", "", margin={"l": 230, "r": 20, "t": 30, "b": 50}),
        }
    return Chart(
        key="red_flags",
        title="Red flags per kind",
        columns=columns,
        rows=table,
        figure=figure,
        note="Deterministic trajectory checks that fired, over all traces.",
    )
