"""Periodic review-queue upkeep."""

from celery import shared_task

from reviews.alignment import alignment_proposal_run
from reviews.claims import review_locks_release_expired


@shared_task(acks_late=True, ignore_result=True)
def review_locks_release_task() -> int:
    """Clear expired claims so queue pages show those items as free (claims already skip them)."""
    return review_locks_release_expired()


@shared_task(acks_late=True, ignore_result=True)
def alignment_proposal_score_task(proposal_id: int) -> None:
    """Score an alignment proposal's old and new version on the calibration labels. Not
    retried: a provider failure is recorded on the proposal, and a retry would pay again."""
    alignment_proposal_run(proposal_id)
