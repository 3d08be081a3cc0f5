"""Receives the pairwise judge's verdicts: each is kept on the pairs it answers; a calibrated
judge in a replacing queue settles an open pair it was sure of, and one it was unsure of (the
order changed its answer) stays with people. A pair people settled re-measures the judge."""

from django.db import transaction
from django.dispatch import receiver
from django.utils import timezone

from judges.models import PairwiseVerdictStatus
from judges.signals import pairwise_verdict_written
from reviews.audit import audit_event_record, review_item_snapshot
from reviews.models import JudgeAssist, PairwiseComparison, ReviewItem, ReviewStatus
from reviews.pairwise_judge import (
    pairwise_judge_calibrate,
    queue_judge_calibrated,
    queue_judge_version,
)

UNSURE_NOTE = "The judge was unsure (the order changed its answer): people decide."


def _item_settle_by_judge(item: ReviewItem, comparison: PairwiseComparison, verdict) -> bool:
    """Settle an open, unanswered, unheld pair with the judge's answer; False when people have
    it already."""
    now = timezone.now()
    locked = ReviewItem.objects.select_for_update().get(pk=item.pk)
    held = locked.claimed_by_id and locked.lock_expires_at and locked.lock_expires_at > now
    answered = locked.annotations.filter(undone_at__isnull=True).exists()
    if locked.status != ReviewStatus.OPEN or held or answered:
        return False
    before = review_item_snapshot(locked)
    locked.status, locked.resolved_score, locked.resolved_at = (
        ReviewStatus.RESOLVED,
        verdict.score,
        now,
    )
    locked.claimed_by, locked.lock_expires_at, locked.needs_curator = None, None, False
    locked.save(
        update_fields=[
            "status",
            "resolved_score",
            "resolved_at",
            "claimed_by",
            "lock_expires_at",
            "needs_curator",
        ]
    )
    comparison.settled_by_judge = True
    comparison.save(update_fields=["settled_by_judge"])
    audit_event_record(
        actor=None,
        action="review_item.judge_settle",
        obj=locked,
        before=before,
        after={**review_item_snapshot(locked), "pairwise_verdict": verdict.pk},
    )
    return True


@receiver(pairwise_verdict_written, dispatch_uid="reviews.pairwise_verdict_settle")
def pairwise_verdict_settle(sender, verdict, **kwargs):
    comparisons = PairwiseComparison.objects.filter(
        baseline_trace_id=verdict.trace_id, candidate_trace_id=verdict.pair_trace_id
    ).select_related("item__queue__rubric", "item__queue__judge_config")
    calibrate = False
    with transaction.atomic():
        for comparison in comparisons:
            item, queue = comparison.item, comparison.item.queue
            if queue_judge_version(queue) != (verdict.rubric_version, verdict.config):
                continue
            comparison.judge_verdict = verdict
            comparison.save(update_fields=["judge_verdict"])
            if item.status == ReviewStatus.RESOLVED and not comparison.settled_by_judge:
                calibrate = True
            elif verdict.status != PairwiseVerdictStatus.AGREED:
                if item.status == ReviewStatus.OPEN and UNSURE_NOTE not in item.detail:
                    item.detail = f"{item.detail} {UNSURE_NOTE}".strip()
                    item.save(update_fields=["detail"])
            elif queue.judge_assist == JudgeAssist.REPLACE and queue_judge_calibrated(queue):
                _item_settle_by_judge(item, comparison, verdict)
        if calibrate:
            pairwise_judge_calibrate(verdict.rubric_version, verdict.config)
