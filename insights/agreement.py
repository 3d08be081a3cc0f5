"""Chart 2: the judge against people on every item a person resolved."""

from __future__ import annotations

from collections import ChainMap, defaultdict

from django.db.models import Count, Exists, OuterRef, Subquery
from django.db.models.functions import TruncDay

from core.stats import agreement_of_confusion
from insights.charts import Chart, empty_figure, panel_title, plain
from insights.daily import DailyPart, DailyStore, daily_rows, day_range_filter, days_of
from insights.flips import judge_version_label
from judges.calibration import rubric_version_scale
from judges.models import Judgment, ParseStatus, RubricVersion, Verdict
from reviews.models import Annotation, ReviewItem, ReviewStatus
from traces.selectors import traces_visible

INTERVALS_KEY = "judge_vs_people_intervals"
VERSION_FIELDS = ("rubric_version_id", "rubric_version__rubric__name", "rubric_version__number")


def _resolved_items():
    return ReviewItem.objects.filter(
        status=ReviewStatus.RESOLVED, resolved_score__isnull=False, verdict__isnull=False
    )


def _open_labelled_items():
    """Resolved items outside the held-out golden set, whose agreement only curators see."""
    return traces_visible(None, _resolved_items(), via="trace")


def _human_score(verdict_ref: str, trace_ref: str | None = None):
    items = _resolved_items().order_by("-resolved_at")
    if trace_ref:
        items = items.filter(verdict__run_id=OuterRef(verdict_ref), trace_id=OuterRef(trace_ref))
    else:
        items = items.filter(verdict_id=OuterRef(verdict_ref))
    return Subquery(items.values("resolved_score")[:1])


def _blind(verdict_filter: dict):
    return Exists(Annotation.objects.filter(blind=True, undone_at__isnull=True, **verdict_filter))


def _cell_day_rows(start, end) -> list[dict]:
    """Counts of (judge score, human score) per judge version, source, blind mode and the day
    the trace arrived: a trace's day never moves, so a new label changes only its own day."""
    in_range = day_range_filter("trace__created_at", start, end)
    labelled = _open_labelled_items().filter(**in_range).values("verdict_id")
    verdict_cells = (
        Verdict.objects.filter(pk__in=labelled, score__isnull=False, **in_range)
        .annotate(
            human=_human_score("pk"),
            blind=_blind({"item__verdict_id": OuterRef("pk")}),
            day=TruncDay("trace__created_at"),
        )
        .values("day", *VERSION_FIELDS, "config__model", "blind", "score", "human")
        .annotate(n=Count("id"))
        .order_by()
    )
    pass_cells = (
        Judgment.objects.filter(
            trace_id__in=_open_labelled_items().filter(**in_range).values("trace_id"),
            parse_status=ParseStatus.OK,
            score__isnull=False,
            **in_range,
        )
        .annotate(
            human=_human_score("run_id", "trace_id"),
            blind=_blind(
                {
                    "item__verdict__run_id": OuterRef("run_id"),
                    "item__trace_id": OuterRef("trace_id"),
                }
            ),
            day=TruncDay("trace__created_at"),
        )
        .filter(human__isnull=False)
        .values("day", *VERSION_FIELDS, "config__model", "blind", "pass_index", "score", "human")
        .annotate(n=Count("id"))
        .order_by()
    )
    cells = [{**row, "source": "verdict"} for row in verdict_cells]
    cells += [{**row, "source": f"pass {row['pass_index'] + 1}"} for row in pass_cells]
    return cells


def _labels_changed(since) -> set:
    """Days of traces whose labels were undone since then (a resolution can undo with them)."""
    return days_of(Annotation.objects.filter(undone_at__gte=since), "item__trace__created_at")


# New verdicts, passes, items and answers all change the day of the trace they are about.
AGREEMENT_DAYS = DailyPart(
    "judge_vs_people",
    _cell_day_rows,
    (
        (Verdict, "trace__created_at"),
        (Judgment, "trace__created_at"),
        (ReviewItem, "trace__created_at"),
        (Annotation, "item__trace__created_at"),
    ),
    changed=_labels_changed,
)


def judge_human_cells(store: DailyStore | None = None) -> dict[tuple, dict]:
    """Per judge version, source and blind mode: how many (judge, human) pairs of each kind."""
    groups: dict[tuple, dict] = defaultdict(lambda: defaultdict(int))
    for cell in daily_rows(AGREEMENT_DAYS, store):
        key = (
            cell["rubric_version_id"],
            judge_version_label(
                cell["rubric_version__rubric__name"],
                cell["rubric_version__number"],
                cell["config__model"],
            ),
            cell["source"],
            bool(cell["blind"]),
        )
        groups[key][(cell["score"], cell["human"])] += cell["n"]
    return groups


def judge_human_agreement(store: DailyStore | None = None, resamples: int = 1000) -> list[dict]:
    """Per judge version, source (each pass, the verdict) and blind mode: matrix, %, kappa."""
    groups = judge_human_cells(store)
    versions = RubricVersion.objects.in_bulk({key[0] for key in groups})
    # Intervals of matrices that did not change since the last rebuild are not drawn again;
    # what is kept is what this rebuild used.
    used: dict = {}
    intervals = ChainMap(used, (store.value_get(INTERVALS_KEY) if store else None) or {})
    results = []
    for (version_id, label, source, blind), pairs in sorted(
        groups.items(), key=lambda kv: (kv[0][1], kv[0][3], kv[0][2] != "verdict", kv[0][2])
    ):
        scale, ordinal = rubric_version_scale(versions[version_id])
        seen = {value for pair in pairs for value in pair}
        labels = list(scale) if scale is not None and seen <= set(scale) else sorted(seen)
        position = {value: index for index, value in enumerate(labels)}
        matrix = [[0] * len(labels) for _ in labels]
        for (judge, human), n in pairs.items():
            matrix[position[judge]][position[human]] += n
        measure = agreement_of_confusion(
            matrix, labels, ordinal=ordinal, resamples=resamples, intervals=intervals
        )
        results.append(
            {
                "judge_version": label,
                "source": source,
                "blind": blind,
                **measure.as_dict(),
            }
        )
    if store is not None:
        store.value_set(INTERVALS_KEY, used)
    return results


def _heatmap(result: dict, axis: int) -> dict:
    suffix = "" if axis == 1 else str(axis)
    labels = [plain(v) for v in result["labels"]]
    return {
        "type": "heatmap",
        "x": [str(v) for v in labels],
        "y": [str(v) for v in labels],
        "z": result["matrix"],
        # Light for few items, dark for many: plotly's named "Blues" runs the other way.
        "colorscale": [[0, "#f4f8fc"], [1, "#08519c"]],
        "showscale": False,
        "xaxis": f"x{suffix}",
        "yaxis": f"y{suffix}",
        "hovertemplate": "judge %{y}, person %{x}: %{z}<extra></extra>",
        "texttemplate": "%{z}",
    }


def _panels_figure(panels: list[dict]) -> dict:
    """Confusion heatmaps side by side, one per result, each titled with its n, agreement and
    kappa."""
    width = 1 / len(panels)
    lay = {
        "margin": {"l": 60, "r": 20, "t": 60, "b": 50},
        "height": 340,
        "annotations": [],
    }
    data = []
    for index, panel in enumerate(panels, start=1):
        suffix = "" if index == 1 else str(index)
        domain = [(index - 1) * width + 0.03, index * width - 0.03]
        lay[f"xaxis{suffix}"] = {
            "domain": domain,
            "title": {"text": "person"},
            "type": "category",
            "anchor": f"y{suffix}",
        }
        lay[f"yaxis{suffix}"] = {
            "anchor": f"x{suffix}",
            "title": {"text": "judge" if index == 1 else ""},
            "type": "category",
        }
        data.append(_heatmap(panel, index))
        kappa = "n/a" if panel["kappa"] is None else f"{panel['kappa']:.2f}"
        agree = panel["percent_agreement"] or 0
        title = (
            f"{panel['source']}{' (blind)' if panel['blind'] else ''}"
            f"<br>n={panel['n']} · {agree:.0%} · κ={kappa}"
        )
        lay["annotations"].append(panel_title(title, domain))
    return {"data": data, "layout": lay}


def _most_labelled_version(results: list[dict]) -> str:
    return max(
        {r["judge_version"] for r in results},
        key=lambda v: sum(r["n"] for r in results if r["judge_version"] == v),
    )


def judge_human_chart(store: DailyStore | None = None, resamples: int = 1000) -> Chart:
    results = judge_human_agreement(store, resamples)
    columns = [
        "judge_version",
        "source",
        "blind",
        "n",
        "percent_agreement",
        "kappa",
        "kappa_low",
        "kappa_high",
        "weights",
        "labels",
        "matrix",
    ]
    rows = [
        [plain(r[c]) if c not in ("labels", "matrix") else str(r[c]) for c in columns]
        for r in results
    ]
    top = None
    if not results:
        figure = empty_figure("No item resolved by a person yet.")
    else:
        # The most-labelled judge version, side by side: each pass, the verdict, blind apart.
        top = _most_labelled_version(results)
        # Verdict and passes as labelled with the judge in view, then the verdict labelled blind.
        mine = [r for r in results if r["judge_version"] == top]
        figure = _panels_figure(
            [r for r in mine if not r["blind"]][:3]
            + [r for r in mine if r["blind"] and r["source"] == "verdict"]
        )
    # The figures without the matrices, for readers of the chart's numbers.
    tables = [
        {c: r[c] for c in columns if c not in ("weights", "labels", "matrix")} for r in results
    ]
    return Chart(
        key="judge_vs_people",
        title="Judge vs people",
        columns=columns,
        rows=rows,
        figure=figure,
        note=(f"Matrices: {top}. " if top else "")
        + "Confusion of each pass and of the verdict against the person's resolution; "
        "Cohen's kappa (linear-weighted on ordinal scales) with a 95% bootstrap interval. "
        "Labels made in blind mode are counted apart; held-out golden examples are reported "
        "to curators only.",
        tables=tables,
    )
