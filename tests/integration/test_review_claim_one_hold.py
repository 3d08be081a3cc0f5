"""One person claiming from many tabs at once still holds one item of the queue."""

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.roles import ANNOTATOR
from reviews.claims import review_item_claim_next
from reviews.models import ReviewItem
from tests.factories import QueueFactory, ReviewItemFactory, UserFactory
from tests.integration.conftest import at_the_same_moment

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

TABS = 10
BURSTS = 5


def test_parallel_claims_by_one_person_lock_one_item():
    queue = QueueFactory(name="Support")
    ReviewItemFactory.create_batch(TABS, queue=queue)
    person = UserFactory(username="annie", roles=[ANNOTATOR])
    for _ in range(BURSTS):
        got, errors = _burst(person, queue)
        assert errors == []
        assert len(set(got) - {None}) == 1, got
        held = ReviewItem.objects.filter(queue=queue, claimed_by=person)
        assert held.count() == 1
        held.update(claimed_by=None, lock_expires_at=None)


def _burst(person, queue):
    got: list[int | None] = []

    def claim(_tab):
        item = review_item_claim_next(user=person, queue=queue)
        got.append(item.pk if item else None)

    errors = at_the_same_moment(claim, range(TABS))
    return got, errors


def test_the_database_refuses_a_second_hold_in_one_queue():
    queue = QueueFactory(name="Support")
    first, second = ReviewItemFactory.create_batch(2, queue=queue)
    person = UserFactory(username="annie", roles=[ANNOTATOR])
    later = timezone.now() + timedelta(minutes=15)
    ReviewItem.objects.filter(pk=first.pk).update(claimed_by=person, lock_expires_at=later)

    with pytest.raises(IntegrityError), transaction.atomic():
        ReviewItem.objects.filter(pk=second.pk).update(claimed_by=person, lock_expires_at=later)


def test_an_expired_hold_makes_room_for_the_next_claim():
    queue = QueueFactory(name="Support")
    first, _ = ReviewItemFactory.create_batch(2, queue=queue)
    person = UserFactory(username="annie", roles=[ANNOTATOR])
    past = timezone.now() - timedelta(minutes=1)
    ReviewItem.objects.filter(pk=first.pk).update(claimed_by=person, lock_expires_at=past)

    item = review_item_claim_next(user=person, queue=queue)

    assert item is not None
    assert ReviewItem.objects.filter(queue=queue, claimed_by=person).count() == 1
