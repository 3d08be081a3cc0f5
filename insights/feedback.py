"""End users' feedback per day: thumbs up and down, and the mean of numeric ratings."""

from __future__ import annotations

import datetime as dt

from django.db.models import Avg, Count, Q
from django.utils import timezone

from insights.charts import Chart, bar_width, date_axis, empty_figure, layout, plain, table_rows
from insights.daily import DailyPart, DailyStore, daily_rows, within_days
from traces.models import Feedback, FeedbackKind
from traces.selectors import traces_visible

WINDOW = dt.timedelta(days=90)
COLUMNS = ["day", "thumbs_up", "thumbs_down", "ratings", "mean_rating", "categories"]


def _feedback_day_rows(start, end):
    return (
        within_days(
            traces_visible(None, Feedback.objects.all(), via="trace"), "created_at", start, end
        )
        .values("day")
        .annotate(
            thumbs_up=Count("id", filter=Q(kind=FeedbackKind.THUMBS, value=1.0)),
            thumbs_down=Count("id", filter=Q(kind=FeedbackKind.THUMBS, value=0.0)),
            ratings=Count("id", filter=Q(kind=FeedbackKind.NUMBER)),
            mean_rating=Avg("value", filter=Q(kind=FeedbackKind.NUMBER)),
            categories=Count("id", filter=Q(kind=FeedbackKind.CATEGORY)),
        )
        .order_by()
    )


FEEDBACK_DAYS = DailyPart("feedback", _feedback_day_rows, ((Feedback, "created_at"),))


def feedback_rows(store: DailyStore | None = None) -> list[dict]:
    """Per day of the last 90: thumbs up and down, ratings and their mean, categories."""
    since = timezone.localdate() - WINDOW
    return [
        {
            **row,
            "day": plain(row["day"]),
            "mean_rating": None if row["mean_rating"] is None else round(row["mean_rating"], 3),
        }
        for row in daily_rows(FEEDBACK_DAYS, store, since)
    ]


def feedback_chart(store: DailyStore | None = None) -> Chart:
    rows = feedback_rows(store)
    if not rows:
        figure = empty_figure("No end-user feedback yet (POST /api/feedback/).")
    else:
        days = [r["day"] for r in rows]
        figure = {
            "data": [
                {
                    "type": "bar",
                    "name": "thumbs up",
                    "x": days,
                    "y": [r["thumbs_up"] for r in rows],
                    "marker": {"color": "#2e7d32"},
                    "width": bar_width("day"),
                },
                {
                    "type": "bar",
                    "name": "thumbs down",
                    "x": days,
                    "y": [-r["thumbs_down"] for r in rows],
                    "customdata": [r["thumbs_down"] for r in rows],
                    "hovertemplate": "%{customdata} thumbs down<extra></extra>",
                    "marker": {"color": "#c62828"},
                    "width": bar_width("day"),
                },
            ],
            "layout": layout(
                "day",
                "feedback",
                barmode="relative",
                xaxis=date_axis(days, "day"),
                yaxis={"title": {"text": "up (above) / down (below)"}, "zeroline": True},
            ),
        }
    ups = sum(r["thumbs_up"] for r in rows)
    downs = sum(r["thumbs_down"] for r in rows)
    share = f"{downs / (ups + downs):.0%} down" if ups + downs else "no thumbs yet"
    return Chart(
        key="feedback",
        title="End-user feedback per day (last 90 days)",
        columns=COLUMNS,
        rows=table_rows(rows, COLUMNS),
        figure=figure,
        note=f"{ups + downs} thumbs, {share}; ratings and categories are in the CSV.",
    )
