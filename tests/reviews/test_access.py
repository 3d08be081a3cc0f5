"""Held-out golden traces stay with curators: annotators cannot claim, list or open them."""

import pytest
from django.urls import reverse

from reviews.claims import review_item_claim_next
from reviews.selectors import queue_items
from tests.factories import GoldenExampleFactory, QueueFactory, ReviewItemFactory, TraceFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def held_out_item():
    trace = TraceFactory(task="Held-out: rebook a cancelled Ryanair flight")
    GoldenExampleFactory(source_trace=trace, held_out=True)
    return ReviewItemFactory(queue=QueueFactory(), trace=trace)


def test_annotators_never_get_held_out_traces(client, annotator, held_out_item):
    assert review_item_claim_next(user=annotator, queue=held_out_item.queue) is None
    client.force_login(annotator)
    page = client.get(reverse("reviews:queue_detail", args=[held_out_item.queue_id]))
    assert "Held-out: rebook" not in page.content.decode()
    item_page = client.get(reverse("reviews:item_detail", args=[held_out_item.pk]))
    assert item_page.status_code == 404


def test_curators_see_and_claim_held_out_traces(client, curator, held_out_item):
    client.force_login(curator)
    page = client.get(reverse("reviews:queue_detail", args=[held_out_item.queue_id]))
    assert "Held-out: rebook" in page.content.decode()
    assert review_item_claim_next(user=curator, queue=held_out_item.queue).pk == held_out_item.pk


def test_a_golden_example_that_is_not_held_out_stays_claimable(annotator):
    trace = TraceFactory()
    GoldenExampleFactory(source_trace=trace, held_out=False)
    item = ReviewItemFactory(queue=QueueFactory(), trace=trace)
    assert review_item_claim_next(user=annotator, queue=item.queue).pk == item.pk


def test_an_annotators_queue_reads_the_held_out_traces_alone(annotator, held_out_item):
    # An anti-join with the few held-out traces (the partial index trace_held_out), not a join
    # with every trace: a queue page walks its own ordering index and stops after a page.
    visible = ReviewItemFactory(queue=held_out_item.queue)
    items = queue_items(held_out_item.queue, {}, annotator)

    assert 'JOIN "traces_trace"' not in str(items.query)
    assert list(items) == [visible]
