"""Queue charts: backlog, arrivals vs resolutions per day, time to resolve, peers."""

import datetime as dt

import pytest
from django.utils import timezone

from insights.queue import annotator_rows, queue_backlog_chart, queue_flow_rows
from reviews.models import Annotation, ReviewItem
from tests.factories import QueueFactory, ReviewItemFactory, UserFactory

pytestmark = pytest.mark.django_db
# A recent day at 09:00 UTC, inside the charts' window.
DAY = (timezone.now() - dt.timedelta(days=30)).replace(hour=9, minute=0, second=0, microsecond=0)
NEXT_DAY = DAY + dt.timedelta(days=1)


def item_at(created, resolved=None, **extra):
    item = ReviewItemFactory(**extra)
    ReviewItem.objects.filter(pk=item.pk).update(
        created_at=created, resolved_at=resolved, status="resolved" if resolved else "open"
    )
    return item


def test_arrivals_resolutions_and_mean_hours_per_day():
    item_at(DAY, DAY + dt.timedelta(hours=2))
    item_at(DAY, DAY + dt.timedelta(hours=4))
    item_at(NEXT_DAY)
    rows = {r["day"]: r for r in queue_flow_rows()}
    assert rows[DAY.date().isoformat()] == {
        "day": DAY.date().isoformat(),
        "arrivals": 2,
        "resolutions": 2,
        "hours": 3.0,
    }
    assert rows[NEXT_DAY.date().isoformat()]["arrivals"] == 1
    assert rows[NEXT_DAY.date().isoformat()]["resolutions"] == 0


def test_backlog_counts_open_items_per_queue_and_reason():
    item_at(DAY, queue=QueueFactory(name="Default"), reason="passes_disagree")
    item_at(DAY, queue=QueueFactory(name="Default"), reason="red_flag")
    item_at(DAY, DAY, queue=QueueFactory(name="Default"), reason="red_flag")
    chart = queue_backlog_chart()
    assert sorted(chart.rows) == [["Default", "passes_disagree", 1], ["Default", "red_flag", 1]]


def test_throughput_and_agreement_with_peers():
    ana, ben, cai = UserFactory(), UserFactory(), UserFactory()
    for ana_score, ben_score in [(1, 1), (0, 1), (1, 1)]:
        item = ReviewItemFactory()
        Annotation.objects.create(item=item, annotator=ana, score=ana_score)
        Annotation.objects.create(item=item, annotator=ben, score=ben_score)
    lone = ReviewItemFactory()
    Annotation.objects.create(item=lone, annotator=cai, score=1)
    undone = Annotation.objects.create(item=lone, annotator=ana, score=0)
    undone.undone_at = DAY
    undone.save()
    rows = {r["annotator"]: r for r in annotator_rows()}
    assert rows[ana.username]["annotations"] == 3
    assert rows[ana.username]["peer_pairs"] == 3
    assert rows[ana.username]["peer_agreement"] == pytest.approx(2 / 3)
    assert rows[cai.username]["peer_pairs"] == 0
    assert rows[cai.username]["peer_agreement"] is None
