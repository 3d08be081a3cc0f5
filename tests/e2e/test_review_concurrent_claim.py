"""Two annotators in two browsers press "Start reviewing" at the same moment."""

import pytest

from accounts.roles import ANNOTATOR
from reviews.models import ReviewItem
from tests.e2e.conftest import login_as
from tests.factories import QueueFactory, ReviewItemFactory, TraceFactory, UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_two_annotators_claiming_at_once_get_different_items(new_page, annotator):
    queue = QueueFactory(name="Travel bookings")
    for task in ("Book LHR-JFK on 3 June", "Move my Lisbon hotel to Friday", "Refund seat 12C"):
        ReviewItemFactory(queue=queue, trace=TraceFactory(task=task))
    other = UserFactory(username="bea", roles=[ANNOTATOR])
    first, second = new_page(), new_page()
    login_as(first, annotator)
    first.console_errors.clear()  # only the review pages are under test
    login_as(second, other)
    second.console_errors.clear()
    for page in (first, second):
        page.goto(f"/reviews/queues/{queue.pk}/")
    # Submit both forms without waiting for either answer, so the requests overlap
    for page in (first, second):
        page.evaluate("document.getElementById('claim-form').submit()")
    for page in (first, second):
        page.wait_for_url("**/reviews/items/*/")
    first_id = int(first.url.rstrip("/").rsplit("/", 1)[1])
    second_id = int(second.url.rstrip("/").rsplit("/", 1)[1])
    assert first_id != second_id
    assert ReviewItem.objects.get(pk=first_id).claimed_by == annotator
    assert ReviewItem.objects.get(pk=second_id).claimed_by == other
    assert first.console_errors == [] and second.console_errors == []
