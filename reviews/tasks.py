"""Periodic review-queue upkeep."""

from celery import shared_task

from reviews.claims import review_locks_release_expired


@shared_task(acks_late=True, ignore_result=True)
def review_locks_release_task() -> int:
    """Clear expired claims so queue pages show those items as free (claims already skip them)."""
    return review_locks_release_expired()
