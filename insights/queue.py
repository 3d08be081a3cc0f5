"""Chart 4: the review queue: backlog, flow per day, time to resolve, people's throughput."""

from __future__ import annotations

import datetime as dt

from django.db.models import Avg, Count, DurationField, ExpressionWrapper, F, Q
from django.db.models.functions import TruncDay
from django.utils import timezone

from insights.charts import (
    PALETTE,
    Chart,
    bar_width,
    count_axis,
    date_axis,
    empty_figure,
    layout,
    plain,
    readable,
)
from reviews.models import Annotation, ReviewItem, ReviewStatus

WINDOW = dt.timedelta(days=90)


def queue_backlog_chart() -> Chart:
    rows = list(
        ReviewItem.objects.filter(status=ReviewStatus.OPEN)
        .values("queue__name", "reason")
        .annotate(open_items=Count("id"))
        .order_by("queue__name", "reason")
    )
    columns = ["queue", "reason", "open_items"]
    table = [[r["queue__name"], r["reason"], r["open_items"]] for r in rows]
    if not rows:
        figure = empty_figure("The queues are empty.")
    else:
        reasons = sorted({r[1] for r in table})
        data = [
            {
                "type": "bar",
                "name": readable(reason),
                "x": [r[0] for r in table if r[1] == reason],
                "y": [r[2] for r in table if r[1] == reason],
                "marker": {"color": PALETTE[i % len(PALETTE)]},
            }
            for i, reason in enumerate(reasons)
        ]
        per_queue: dict[str, int] = {}
        for queue, _, count in table:
            per_queue[queue] = per_queue.get(queue, 0) + count
        figure = {
            "data": data,
            "layout": layout(
                "queue",
                "open items",
                barmode="stack",
                yaxis=count_axis(max(per_queue.values()), "open items"),
            ),
        }
    return Chart(
        key="queue_backlog",
        title="Review backlog",
        columns=columns,
        rows=table,
        figure=figure,
        note="Open items per queue, by why they were queued.",
    )


def queue_flow_rows() -> list[dict]:
    """Per day of the last 90: items queued, items resolved, mean hours from queued to resolved."""
    since = timezone.now() - WINDOW
    arrivals = (
        ReviewItem.objects.filter(created_at__gte=since)
        .annotate(day=TruncDay("created_at"))
        .values("day")
        .annotate(n=Count("id"))
    )
    resolutions = (
        ReviewItem.objects.filter(resolved_at__gte=since)
        .annotate(
            day=TruncDay("resolved_at"),
            wait=ExpressionWrapper(
                F("resolved_at") - F("created_at"), output_field=DurationField()
            ),
        )
        .values("day")
        .annotate(n=Count("id"), wait=Avg("wait"))
    )
    days: dict = {}
    for row in arrivals:
        days.setdefault(plain(row["day"]), {"arrivals": 0, "resolutions": 0, "hours": None})
        days[plain(row["day"])]["arrivals"] = row["n"]
    for row in resolutions:
        entry = days.setdefault(plain(row["day"]), {"arrivals": 0, "resolutions": 0, "hours": None})
        entry["resolutions"] = row["n"]
        if row["wait"] is not None:
            entry["hours"] = round(row["wait"].total_seconds() / 3600, 3)
    return [{"day": day, **values} for day, values in sorted(days.items())]


def queue_flow_chart() -> Chart:
    rows = queue_flow_rows()
    columns = ["day", "arrivals", "resolutions", "mean_hours_to_resolve"]
    table = [[r["day"], r["arrivals"], r["resolutions"], r["hours"]] for r in rows]
    if not rows:
        figure = empty_figure("Nothing has been queued yet.")
    else:
        days = [r[0] for r in table]
        half = bar_width("day", 0.4)
        figure = {
            "data": [
                # Side by side by explicit offset: plotly infers no width from one date.
                {
                    "type": "bar",
                    "name": "arrivals",
                    "x": days,
                    "y": [r[1] for r in table],
                    "width": half,
                    "offset": -half,
                },
                {
                    "type": "bar",
                    "name": "resolutions",
                    "x": days,
                    "y": [r[2] for r in table],
                    "width": half,
                    "offset": 0,
                },
                {
                    "type": "scatter",
                    "mode": "lines+markers",
                    "name": "mean hours to resolve",
                    "x": days,
                    "y": [r[3] for r in table],
                    "yaxis": "y2",
                    "connectgaps": True,
                },
            ],
            "layout": layout(
                "day",
                "items",
                barmode="overlay",
                colorway=PALETTE,
                margin={"l": 60, "r": 70, "t": 40, "b": 50},
                xaxis=date_axis(days, "day"),
                yaxis=count_axis(max(max(r[1], r[2]) for r in table), "items"),
                yaxis2={
                    "title": {"text": "hours to resolve"},
                    "overlaying": "y",
                    "side": "right",
                    "rangemode": "tozero",
                    "showgrid": False,
                },
            ),
        }
    return Chart(
        key="queue_flow",
        title="Arrivals vs resolutions per day (last 90 days)",
        columns=columns,
        rows=table,
        figure=figure,
        note="Time to resolve is from queueing to the resolution, on the day it resolved.",
    )


def annotator_rows() -> list[dict]:
    """Per person: annotations made, and how often they match a peer on the same item."""
    peer = Q(item__annotations__undone_at__isnull=True) & ~Q(
        item__annotations__annotator=F("annotator")
    )
    rows = (
        Annotation.objects.filter(undone_at__isnull=True)
        .values("annotator__username")
        .annotate(
            annotations=Count("id", distinct=True),
            peer_pairs=Count("item__annotations", filter=peer),
            peer_agreements=Count(
                "item__annotations", filter=peer & Q(item__annotations__score=F("score"))
            ),
        )
        .order_by("-annotations")
    )
    return [
        {
            "annotator": r["annotator__username"],
            "annotations": r["annotations"],
            "peer_pairs": r["peer_pairs"],
            "peer_agreement": (r["peer_agreements"] / r["peer_pairs"] if r["peer_pairs"] else None),
        }
        for r in rows
    ]


def annotator_chart() -> Chart:
    rows = annotator_rows()
    columns = ["annotator", "annotations", "peer_pairs", "peer_agreement"]
    table = [[plain(r[c]) for c in columns] for r in rows]
    if not rows:
        figure = empty_figure("No annotation yet.")
    else:
        names = [r["annotator"] for r in rows]
        figure = {
            "data": [
                {
                    "type": "bar",
                    "name": "annotations",
                    "x": names,
                    "y": [r["annotations"] for r in rows],
                    "marker": {"color": PALETTE[0]},
                },
                {
                    "type": "scatter",
                    "mode": "markers",
                    "name": "agreement with peers",
                    "x": names,
                    "y": [r["peer_agreement"] for r in rows],
                    "yaxis": "y2",
                    "marker": {"color": PALETTE[3], "size": 11},
                },
            ],
            "layout": layout(
                "annotator",
                "annotations",
                margin={"l": 60, "r": 70, "t": 40, "b": 50},
                yaxis=count_axis(max(r["annotations"] for r in rows), "annotations"),
                yaxis2={
                    "title": {"text": "agreement with peers"},
                    "overlaying": "y",
                    "side": "right",
                    "range": [0, 1.05],
                    "tickformat": ".0%",
                },
            ),
        }
    return Chart(
        key="annotators",
        title="Throughput and agreement with peers per annotator",
        columns=columns,
        rows=table,
        figure=figure,
        note="Agreement counts pairs of live annotations on the same item with equal scores.",
    )
