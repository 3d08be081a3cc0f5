"""Receives the judges -> reviews hand-off: a verdict that needs a person becomes queue items."""

from django.dispatch import receiver

from judges.signals import verdict_needs_review
from reviews.services import review_item_enqueue


@receiver(verdict_needs_review, dispatch_uid="reviews.enqueue_verdict")
def enqueue_verdict_for_review(sender, verdict, reasons, detail="", **kwargs):
    for reason in reasons:
        review_item_enqueue(
            trace=verdict.trace,
            verdict=verdict,
            rubric_version=verdict.rubric_version,
            reason=reason,
            detail=detail,
        )
