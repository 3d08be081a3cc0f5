"""Chart 4: the review queue: backlog, flow per day, time to resolve, people's throughput."""

from __future__ import annotations

import datetime as dt

from django.db.models import Avg, Count, DurationField, ExpressionWrapper, F, Q
from django.db.models.functions import Greatest, TruncDay
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
    table_rows,
)
from insights.daily import DailyPart, DailyStore, daily_rows, day_range_filter, days_of, within_days
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


def _arrival_day_rows(start, end):
    return (
        within_days(ReviewItem.objects.all(), "created_at", start, end)
        .values("day")
        .annotate(n=Count("id"))
        .order_by()
    )


def _resolution_day_rows(start, end):
    """Per day: items resolved, and their mean time from queued to resolved."""
    return (
        within_days(ReviewItem.objects.exclude(resolved_at__isnull=True), "resolved_at", start, end)
        .annotate(
            wait=ExpressionWrapper(
                F("resolved_at") - F("created_at"), output_field=DurationField()
            ),
        )
        .values("day")
        .annotate(n=Count("id"), wait=Avg("wait"))
        .order_by()
    )


ARRIVAL_DAYS = DailyPart("queue_arrivals", _arrival_day_rows, ((ReviewItem, "created_at"),))
# An item resolves when an answer is written, so a new answer marks its day (today's).
RESOLUTION_DAYS = DailyPart(
    "queue_resolutions", _resolution_day_rows, ((Annotation, "item__resolved_at"),)
)


def queue_flow_rows(store: DailyStore | None = None) -> list[dict]:
    """Per day of the last 90: items queued, items resolved, mean hours from queued to resolved."""
    since = timezone.localdate() - WINDOW
    days: dict = {}
    for row in daily_rows(ARRIVAL_DAYS, store, since):
        days.setdefault(plain(row["day"]), {"arrivals": 0, "resolutions": 0, "hours": None})
        days[plain(row["day"])]["arrivals"] = row["n"]
    for row in daily_rows(RESOLUTION_DAYS, store, since):
        entry = days.setdefault(plain(row["day"]), {"arrivals": 0, "resolutions": 0, "hours": None})
        entry["resolutions"] = row["n"]
        if row["wait"] is not None:
            entry["hours"] = round(row["wait"].total_seconds() / 3600, 3)
    return [{"day": day, **values} for day, values in sorted(days.items())]


def queue_flow_chart(store: DailyStore | None = None) -> Chart:
    rows = queue_flow_rows(store)
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


def _annotation_day_rows(start, end):
    """Per day and person: live annotations made."""
    return (
        within_days(Annotation.objects.filter(undone_at__isnull=True), "created_at", start, end)
        .values("day", "annotator__username")
        .annotate(annotations=Count("id"))
        .order_by()
    )


def _peer_pair_day_rows(start, end):
    """Per day and person: pairs of the person's live annotation with a live one of a peer on
    the same item, and how many of them score alike. A pair's day is its later answer's."""
    pairs = (
        Annotation.objects.filter(undone_at__isnull=True)
        .alias(
            peer_annotator=F("item__annotations__annotator_id"),
            peer_undone_at=F("item__annotations__undone_at"),
            peer_score=F("item__annotations__score"),
            paired_at=Greatest("created_at", "item__annotations__created_at"),
        )
        .filter(peer_undone_at__isnull=True, **day_range_filter("paired_at", start, end))
        .exclude(peer_annotator=F("annotator_id"))
    )
    return (
        pairs.annotate(day=TruncDay("paired_at"))
        .values("day", "annotator__username")
        .annotate(
            peer_pairs=Count("id"), peer_agreements=Count("id", filter=Q(peer_score=F("score")))
        )
        .order_by()
    )


def _answers_undone(since) -> set:
    """Days of every answer on items where one was undone since then, so each pair's day."""
    return days_of(Annotation.objects.filter(undone_at__gte=since), "item__annotations__created_at")


ANNOTATION_DAYS = DailyPart(
    "annotations", _annotation_day_rows, ((Annotation, "created_at"),), changed=_answers_undone
)
PEER_PAIR_DAYS = DailyPart(
    "peer_pairs",
    _peer_pair_day_rows,
    ((Annotation, "item__annotations__created_at"),),
    changed=_answers_undone,
)


def annotator_rows(store: DailyStore | None = None) -> list[dict]:
    """Per person: annotations made, and how often they match a peer on the same item."""
    people: dict[str, dict] = {}
    for row in daily_rows(ANNOTATION_DAYS, store):
        person = people.setdefault(
            row["annotator__username"], {"annotations": 0, "peer_pairs": 0, "agreements": 0}
        )
        person["annotations"] += row["annotations"]
    for row in daily_rows(PEER_PAIR_DAYS, store):
        person = people[row["annotator__username"]]
        person["peer_pairs"] += row["peer_pairs"]
        person["agreements"] += row["peer_agreements"]
    return [
        {
            "annotator": name,
            "annotations": person["annotations"],
            "peer_pairs": person["peer_pairs"],
            "peer_agreement": (
                person["agreements"] / person["peer_pairs"] if person["peer_pairs"] else None
            ),
        }
        for name, person in sorted(people.items(), key=lambda kv: (-kv[1]["annotations"], kv[0]))
    ]


def annotator_chart(store: DailyStore | None = None) -> Chart:
    rows = annotator_rows(store)
    columns = ["annotator", "annotations", "peer_pairs", "peer_agreement"]
    table = table_rows(rows, columns, plain)
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
                # Long or many names turn their labels; the margin grows so they clear the title.
                xaxis={"title": {"text": "annotator"}, "type": "category", "automargin": True},
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
