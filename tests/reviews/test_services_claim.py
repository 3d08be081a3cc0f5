"""review_item_claim_next: order, one holder per item, expiry returns items, skips, roles."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.roles import ANNOTATOR
from core.errors import ApplicationError
from reviews.claims import (
    LockLost,
    review_item_claim_next,
    review_item_lock_renew,
    review_locks_release_expired,
)
from reviews.models import ReviewStatus
from reviews.services import review_item_skip
from tests.factories import QueueFactory, ReviewItemFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_claim_takes_the_highest_priority_then_oldest_item(annotator):
    # Given three open items, one of them urgent
    queue = QueueFactory()
    old = ReviewItemFactory(queue=queue)
    ReviewItemFactory(queue=queue)
    urgent = ReviewItemFactory(queue=queue, priority=5)
    # When the annotator claims twice (finishing nothing)
    first = review_item_claim_next(user=annotator, queue=queue)
    # Then the urgent one comes first, with a 15-minute lock
    assert first.pk == urgent.pk
    assert first.claimed_by == annotator
    remaining = (first.lock_expires_at - timezone.now()).total_seconds()
    assert 14 * 60 < remaining <= 15 * 60
    # And claiming again returns the item already held rather than a second one
    assert review_item_claim_next(user=annotator, queue=queue).pk == urgent.pk
    assert old.pk != urgent.pk


def test_two_annotators_never_get_the_same_item(annotator):
    queue = QueueFactory()
    ReviewItemFactory.create_batch(2, queue=queue)
    other = UserFactory(roles=[ANNOTATOR])
    a = review_item_claim_next(user=annotator, queue=queue)
    b = review_item_claim_next(user=other, queue=queue)
    assert a.pk != b.pk
    # A third person finds nothing left
    third = UserFactory(roles=[ANNOTATOR])
    assert review_item_claim_next(user=third, queue=queue) is None


def test_an_expired_lock_returns_the_item_to_the_queue(annotator):
    queue = QueueFactory()
    other = UserFactory(roles=[ANNOTATOR])
    item = ReviewItemFactory(
        queue=queue, claimed_by=other, lock_expires_at=timezone.now() - timedelta(seconds=1)
    )
    claimed = review_item_claim_next(user=annotator, queue=queue)
    assert claimed.pk == item.pk
    assert claimed.claimed_by == annotator
    # And the former holder can no longer renew it
    with pytest.raises(LockLost):
        review_item_lock_renew(item=item, user=other)


def test_a_live_lock_keeps_the_item_away_from_others(annotator):
    queue = QueueFactory()
    other = UserFactory(roles=[ANNOTATOR])
    ReviewItemFactory(
        queue=queue, claimed_by=other, lock_expires_at=timezone.now() + timedelta(minutes=3)
    )
    assert review_item_claim_next(user=annotator, queue=queue) is None


def test_renewing_extends_the_lock(annotator):
    queue = QueueFactory()
    ReviewItemFactory(queue=queue)
    item = review_item_claim_next(user=annotator, queue=queue)
    item.lock_expires_at = timezone.now() + timedelta(minutes=1)
    item.save(update_fields=["lock_expires_at"])
    expires = review_item_lock_renew(item=item, user=annotator)
    assert (expires - timezone.now()).total_seconds() > 14 * 60


def test_skipped_items_are_not_offered_again_to_the_same_person(annotator):
    queue = QueueFactory()
    ReviewItemFactory.create_batch(2, queue=queue)
    first = review_item_claim_next(user=annotator, queue=queue)
    review_item_skip(item=first, user=annotator)
    first.refresh_from_db()
    assert first.claimed_by is None
    second = review_item_claim_next(user=annotator, queue=queue)
    assert second.pk != first.pk
    review_item_skip(item=second, user=annotator)
    assert review_item_claim_next(user=annotator, queue=queue) is None
    # Someone else still gets the skipped item
    other = UserFactory(roles=[ANNOTATOR])
    assert review_item_claim_next(user=other, queue=queue).pk == first.pk


def test_items_for_curators_closed_items_and_others_assignments_are_not_claimable(annotator):
    queue = QueueFactory()
    other = UserFactory(roles=[ANNOTATOR])
    ReviewItemFactory(queue=queue, needs_curator=True)
    ReviewItemFactory(queue=queue, status=ReviewStatus.CLOSED)
    ReviewItemFactory(queue=queue, assigned_to=other)
    mine = ReviewItemFactory(queue=queue, assigned_to=annotator)
    assert review_item_claim_next(user=annotator, queue=queue).pk == mine.pk


def test_claiming_needs_the_annotator_role(outsider):
    queue = QueueFactory()
    ReviewItemFactory(queue=queue)
    with pytest.raises(ApplicationError):
        review_item_claim_next(user=outsider, queue=queue)


def test_release_sweep_clears_only_expired_locks(annotator):
    queue = QueueFactory()
    past = ReviewItemFactory(
        queue=queue, claimed_by=annotator, lock_expires_at=timezone.now() - timedelta(minutes=1)
    )
    live = ReviewItemFactory(
        queue=queue,
        claimed_by=UserFactory(roles=[ANNOTATOR]),  # one hold per person and queue
        lock_expires_at=timezone.now() + timedelta(minutes=1),
    )
    assert review_locks_release_expired() == 1
    past.refresh_from_db()
    live.refresh_from_db()
    assert past.claimed_by is None
    assert live.claimed_by is not None
