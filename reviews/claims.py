"""Claiming review items: who holds which item, and for how long.

PostgreSQL hands out rows with SELECT ... FOR UPDATE SKIP LOCKED; SQLite, which has no row
locks, uses a conditional UPDATE that takes an item only while it is still free.
"""

import random
import time
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, OperationalError, connection, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from accounts.roles import ANNOTATOR, has_role
from core.errors import ApplicationError
from reviews.access import review_items_visible
from reviews.holds import held_by
from reviews.models import Annotation, ItemSkip, Queue, ReviewItem, ReviewStatus


class LockLost(ApplicationError):
    """The person no longer holds the item: the lock expired or someone else claimed it."""

    def __init__(self, message: str):
        super().__init__(message, field="item", code="lock_lost", status_code=409)


def lock_expiry(now):
    return now + timedelta(seconds=settings.REVIEW_LOCK_SECONDS)


def review_items_claimable(*, user, queue, now=None):
    """Open items of a queue this person may claim now, in claim order."""
    now = now or timezone.now()
    annotated = Annotation.objects.filter(
        item=OuterRef("pk"), annotator=user, undone_at__isnull=True
    )
    skipped = ItemSkip.objects.filter(item=OuterRef("pk"), user=user)
    items = review_items_visible(user, ReviewItem.objects.all())
    return (
        items.filter(queue=queue, status=ReviewStatus.OPEN, needs_curator=False)
        # An expired lock returns the item to the queue.
        .filter(Q(claimed_by__isnull=True) | Q(lock_expires_at__lt=now))
        .filter(Q(assigned_to__isnull=True) | Q(assigned_to=user))
        .exclude(Exists(annotated))
        .exclude(Exists(skipped))
        .order_by("-priority", "created_at", "pk")
    )


def review_item_claim_next(*, user, queue) -> ReviewItem | None:
    """Lock the next item of the queue for this person (15 min), or None when none is left.

    An item the person already holds is returned first. Two people asking at the same moment
    never get the same item: PostgreSQL skips rows another claim has locked; elsewhere a
    conditional UPDATE takes an item only if it is still free.
    """
    if not has_role(user, ANNOTATOR):
        raise ApplicationError("Claiming review items needs the annotator role.", status_code=403)
    now = timezone.now()
    held = (
        ReviewItem.objects.filter(held_by(user, now), queue=queue, status=ReviewStatus.OPEN)
        .order_by("-priority", "created_at", "pk")
        .first()
    )
    if held:
        review_item_lock_renew(item=held, user=user)
        held.refresh_from_db()
        return held
    review_item_holds_release(user=user, queue=queue, now=now)
    try:
        if connection.features.has_select_for_update_skip_locked:
            return _claim_with_skip_locked(user=user, queue=queue, now=now)
        return _claim_with_conditional_update(user=user, queue=queue, now=now)
    except IntegrityError:
        # review_item_one_hold_per_queue: a parallel claim of this person won; answer with it.
        return ReviewItem.objects.filter(
            queue=queue, status=ReviewStatus.OPEN, claimed_by=user
        ).first()


def review_item_holds_release(*, user, queue, now=None, expired_only: bool = True) -> int:
    """Give back this person's holds in the queue (by default only those whose lock ran out),
    so the one-hold-per-queue constraint leaves room for the next claim."""
    holds = ReviewItem.objects.filter(queue=queue, status=ReviewStatus.OPEN, claimed_by=user)
    if expired_only:
        holds = holds.filter(lock_expires_at__lte=now or timezone.now())
    return holds.update(claimed_by=None, lock_expires_at=None)


def review_item_claim_next_any(*, user) -> ReviewItem | None:
    """The next item from the highest-priority queue that has one for this person."""
    for queue in Queue.objects.order_by("-priority", "name"):
        item = review_item_claim_next(user=user, queue=queue)
        if item is not None:
            return item
    return None


def _claim_with_skip_locked(*, user, queue, now) -> ReviewItem | None:
    with transaction.atomic():
        item = (
            review_items_claimable(user=user, queue=queue, now=now)
            .select_for_update(skip_locked=True, of=("self",))
            .first()
        )
        if item is None:
            return None
        item.claimed_by = user
        item.lock_expires_at = lock_expiry(now)
        item.save(update_fields=["claimed_by", "lock_expires_at"])
        return item


def _claim_with_conditional_update(*, user, queue, now, attempts: int = 40) -> ReviewItem | None:
    # The UPDATE re-checks "still free" in the same statement, so only one claimer wins a row.
    for attempt in range(attempts):
        try:
            return _claim_first_free(user=user, queue=queue, now=now)
        except OperationalError as exc:
            # SQLite reports a writer holding the table as "locked": wait a moment and retry.
            if "locked" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(0.01 + random.random() * 0.04)
    return None


def _claim_first_free(*, user, queue, now) -> ReviewItem | None:
    while True:
        candidates = list(
            review_items_claimable(user=user, queue=queue, now=now).values_list("pk", flat=True)[:5]
        )
        if not candidates:
            return None
        for pk in candidates:
            taken = (
                ReviewItem.objects.filter(pk=pk, status=ReviewStatus.OPEN, needs_curator=False)
                .filter(Q(claimed_by__isnull=True) | Q(lock_expires_at__lt=now))
                .update(claimed_by=user, lock_expires_at=lock_expiry(now))
            )
            if taken:
                return ReviewItem.objects.get(pk=pk)
        # All five went to others between the read and the update: read again.


def review_item_lock_renew(*, item, user):
    """Extend the person's lock while the item page is open; raise LockLost if it is gone."""
    now = timezone.now()
    expires = lock_expiry(now)
    renewed = ReviewItem.objects.filter(
        held_by(user, now), pk=item.pk, status=ReviewStatus.OPEN
    ).update(lock_expires_at=expires)
    if not renewed:
        raise LockLost(lock_lost_message(item))
    return expires


def lock_lost_message(item) -> str:
    return (
        f"Your lock on item #{item.pk} has expired or another reviewer has it now, "
        "so this resolution was not saved. Your text is kept below: copy it, then claim "
        "the next item."
    )


def review_locks_release_expired() -> int:
    """Clear locks past their expiry so the queue pages show the items as free again."""
    return ReviewItem.objects.filter(
        claimed_by__isnull=False, lock_expires_at__lt=timezone.now()
    ).update(claimed_by=None, lock_expires_at=None)
