"""Queue pages per role: list, filters, progress, agreement, claim, saved views, bulk actions."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.roles import ANNOTATOR
from reviews.models import Annotation, AuditEvent, ReviewReason, ReviewStatus, SavedView
from tests.factories import QueueFactory, ReviewItemFactory, TraceFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("persona", "status"),
    [("annotator", 200), ("curator", 200), ("admin_user", 200), ("outsider", 403)],
)
def test_queue_pages_need_the_annotator_role(client, request, persona, status):
    queue = QueueFactory()
    client.force_login(request.getfixturevalue(persona))
    assert client.get(reverse("reviews:queue_list")).status_code == status
    assert client.get(reverse("reviews:queue_detail", args=[queue.pk])).status_code == status
    claim = client.post(reverse("reviews:queue_claim", args=[queue.pk]))
    assert claim.status_code == (302 if status == 200 else 403)


def test_queue_page_query_count_does_not_grow_with_rows(client, annotator):
    queue = QueueFactory()
    ReviewItemFactory.create_batch(3, queue=queue)
    client.force_login(annotator)
    url = reverse("reviews:queue_detail", args=[queue.pk])
    client.get(url)  # agreement is computed once, then cached until answers change
    with CaptureQueriesContext(connection) as few:
        assert client.get(url).status_code == 200
    for _ in range(30):  # thirty holders: a person holds one item per queue
        ReviewItemFactory(queue=queue, claimed_by=UserFactory(roles=[ANNOTATOR]))
    with CaptureQueriesContext(connection) as many:
        html = client.get(url).content.decode()
    assert len(many) == len(few)
    assert html.count("<tr>") >= 33


def test_filters_progress_and_the_claim_button(client, annotator):
    queue = QueueFactory()
    ReviewItemFactory(queue=queue, trace=TraceFactory(task="Refund a broken kettle"))
    ReviewItemFactory(queue=queue, reason=ReviewReason.RED_FLAG,
                      trace=TraceFactory(task="Change my flight to Friday"))  # fmt: skip
    done = ReviewItemFactory(queue=queue, status=ReviewStatus.RESOLVED)
    Annotation.objects.create(item=done, annotator=annotator, score=1)
    client.force_login(annotator)
    url = reverse("reviews:queue_detail", args=[queue.pk])
    html = client.get(url, {"reason": "red_flag"}).content.decode()
    assert "Change my flight to Friday" in html
    assert "Refund a broken kettle" not in html
    html = client.get(url, {"q": "kettle"}).content.decode()
    assert "Refund a broken kettle" in html and "Change my flight" not in html
    assert 'id="stat-left">2<' in html
    assert 'id="stat-mine-today">1<' in html
    assert 'id="claim-button"' in html


def test_saved_views_belong_to_the_person(client, annotator):
    queue = QueueFactory()
    client.force_login(annotator)
    client.post(
        reverse("reviews:saved_view_create", args=[queue.pk]),
        {"name": "Red flags", "query": "reason=red_flag"},
    )
    view = SavedView.objects.get()
    assert view.user == annotator and view.query == "reason=red_flag"
    html = client.get(reverse("reviews:queue_detail", args=[queue.pk])).content.decode()
    assert "?reason=red_flag" in html
    other = UserFactory(roles=[ANNOTATOR])
    client.force_login(other)
    client.post(reverse("reviews:saved_view_delete", args=[view.pk]))
    assert SavedView.objects.exists()


def test_bulk_select_all_means_every_item_matching_the_filter(client, curator):
    queue = QueueFactory()
    ReviewItemFactory.create_batch(60, queue=queue, reason=ReviewReason.AUDIT_SAMPLE)
    keep = ReviewItemFactory(queue=queue, reason=ReviewReason.PASSES_DISAGREE)
    client.force_login(curator)
    # The page shows 50 rows, but "all matching" closes all 60 audit samples
    response = client.post(
        reverse("reviews:queue_bulk", args=[queue.pk]),
        {"action": "close", "select_all": "1", "query": "reason=audit_sample"},
    )
    assert response.status_code == 302
    assert queue.items.filter(status=ReviewStatus.CLOSED).count() == 60
    keep.refresh_from_db()
    assert keep.status == ReviewStatus.OPEN
    assert AuditEvent.objects.filter(action="review_item.bulk_close").count() == 60


def test_bulk_reassign_ticked_items_and_annotators_cannot_bulk(client, curator, annotator):
    queue = QueueFactory()
    a, b, _ = (ReviewItemFactory(queue=queue) for _ in range(3))
    client.force_login(annotator)
    url = reverse("reviews:queue_bulk", args=[queue.pk])
    assert client.post(url, {"action": "close", "select_all": "1"}).status_code == 403
    client.force_login(curator)
    client.post(url, {"action": "reassign", "item_ids": [a.pk, b.pk], "assignee": "annie"})
    assert set(queue.items.filter(assigned_to=annotator).values_list("pk", flat=True)) == {
        a.pk,
        b.pk,
    }


def test_start_with_the_most_urgent_queue(client, annotator):
    calm = QueueFactory(name="Calm", priority=0)
    urgent = QueueFactory(name="Urgent", priority=9)
    ReviewItemFactory(queue=calm)
    item = ReviewItemFactory(queue=urgent)
    client.force_login(annotator)
    html = client.get(reverse("reviews:queue_list")).content.decode()
    assert html.index("Urgent") < html.index("Calm")
    response = client.post(reverse("reviews:claim_any"))
    assert response.url == reverse("reviews:item_detail", args=[item.pk])


def test_agreement_on_the_page_follows_new_and_undone_answers(client, annotator):
    from django.utils import timezone

    queue = QueueFactory(name="Overlap", annotators_per_item=2)
    other = UserFactory(roles=[ANNOTATOR])
    client.force_login(annotator)
    url = reverse("reviews:queue_detail", args=[queue.pk])
    for a, b in [(1, 1), (0, 0), (1, 0)]:
        item = ReviewItemFactory(queue=queue)
        Annotation.objects.create(item=item, annotator=annotator, score=a)
        last = Annotation.objects.create(item=item, annotator=other, score=b)
    html = client.get(url).content.decode()
    assert "(3 items, 2 people)" in html
    last.undone_at = timezone.now()
    last.save()
    html = client.get(url).content.decode()
    assert "(2 items, 2 people)" in html


def test_queue_list_shows_agreement_per_queue(client, annotator):
    queue = QueueFactory(name="Overlap", annotators_per_item=2)
    other = UserFactory(roles=[ANNOTATOR])
    for a, b in [(1, 1), (0, 0), (1, 0), (0, 0)]:
        item = ReviewItemFactory(queue=queue)
        Annotation.objects.create(item=item, annotator=annotator, score=a)
        Annotation.objects.create(item=item, annotator=other, score=b)
    client.force_login(annotator)
    html = client.get(reverse("reviews:queue_list")).content.decode()
    assert "κ 0.50" in html
    assert "(4 items)" in html


@pytest.mark.parametrize(
    ("persona", "status"), [("annotator", 403), ("curator", 200), ("admin_user", 200)]
)
def test_queue_create_page_is_for_curators(client, request, persona, status):
    client.force_login(request.getfixturevalue(persona))
    assert client.get(reverse("reviews:queue_create")).status_code == status


def test_curator_creates_and_edits_a_queue(client, curator):
    from reviews.models import Queue

    client.force_login(curator)
    response = client.post(
        reverse("reviews:queue_create"),
        {"name": "Refunds", "priority": "4", "annotators_per_item": "2",
         "audit_sample_rate": "0.05", "blind": "on"},
    )  # fmt: skip
    queue = Queue.objects.get(name="Refunds")
    assert response.url == reverse("reviews:queue_detail", args=[queue.pk])
    assert queue.blind and queue.annotators_per_item == 2 and queue.priority == 4
    refused = client.post(
        reverse("reviews:queue_edit", args=[queue.pk]),
        {"name": "Refunds", "priority": "4", "annotators_per_item": "0",
         "audit_sample_rate": "3"},
    )  # fmt: skip
    assert refused.status_code == 200
    assert "Between 1 and 10" in refused.content.decode()
    assert "between 0 and 1" in refused.content.decode()
    queue.refresh_from_db()
    assert queue.annotators_per_item == 2


def test_queue_list_query_count_does_not_grow_with_queues(client, annotator):
    QueueFactory(name="One")
    client.force_login(annotator)
    url = reverse("reviews:queue_list")
    client.get(url)
    with CaptureQueriesContext(connection) as few:
        client.get(url)
    for name in ("Two", "Three", "Four"):
        QueueFactory(name=name)
    client.get(url)  # agreement of the new queues is computed once
    with CaptureQueriesContext(connection) as many:
        html = client.get(url).content.decode()
    assert "Four" in html
    assert len(many) == len(few)


def test_a_first_time_annotator_starts_with_disputes_not_calibration(client, annotator):
    # given a dispute in the default queue and a blind calibration sample
    from reviews.calibration_receivers import calibration_queue
    from reviews.services import queue_for_rubric

    dispute = ReviewItemFactory(queue=queue_for_rubric(None))
    ReviewItemFactory(queue=calibration_queue())
    client.force_login(annotator)
    # when they press the start button
    response = client.post(reverse("reviews:claim_any"))
    # then they get the dispute, and the page says what each queue is for
    assert response.url == reverse("reviews:item_detail", args=[dispute.pk])
    html = client.get(reverse("reviews:queue_list")).content.decode()
    assert html.index(">Default</a>") < html.index(">Calibration</a>")
    assert "Disputes: judge passes that disagree" in html
    assert "Blind samples of judge versions still being calibrated" in html
