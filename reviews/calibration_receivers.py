"""Calibration hand-offs: blind samples of a calibrating judge's verdicts, and their labels back.

Verdicts of a judge version that is still calibrating are sampled into the "Calibration" queue,
which is blind so people are not anchored on the judge. Each resolution there re-measures the
judge version's agreement with people.
"""

from django.db.models.signals import post_save
from django.dispatch import receiver

from judges.calibration import (
    calibration_may_sample,
    calibration_sample_claim,
    judge_calibration_update,
)
from judges.signals import verdict_written
from reviews.models import Queue, ReviewItem, ReviewReason, ReviewStatus
from reviews.services import verdict_item_enqueue
from traces.selectors import traces_visible

CALIBRATION_QUEUE_NAME = "Calibration"
# Below the disputes (priority 0): a verdict nobody can trust waits on a person; a calibration
# sample only measures the judge, so "the most urgent queue" is never this one by default.
CALIBRATION_QUEUE_PRIORITY = -1


def calibration_queue() -> Queue:
    queue, _ = Queue.objects.get_or_create(
        name=CALIBRATION_QUEUE_NAME,
        defaults={"blind": True, "priority": CALIBRATION_QUEUE_PRIORITY},
    )
    return queue


def calibration_items_settled(rubric_version, config):
    """A judge version's resolved calibration items whose verdict and answer both have a
    score, on traces anyone may see (held-out golden traces never calibrate), oldest first."""
    return traces_visible(
        None,
        ReviewItem.objects.filter(
            reason=ReviewReason.CALIBRATION,
            status=ReviewStatus.RESOLVED,
            resolved_score__isnull=False,
            verdict__rubric_version=rubric_version,
            verdict__config=config,
            verdict__score__isnull=False,
        ),
        via="trace",
    ).order_by("resolved_at", "pk")


def calibration_label_pairs(rubric_version, config) -> list[tuple[float, float]]:
    """(judge verdict score, human resolved score) of resolved calibration items, oldest first."""
    rows = calibration_items_settled(rubric_version, config)
    return list(rows.values_list("verdict__score", "resolved_score"))


@receiver(verdict_written, dispatch_uid="reviews.calibration_sample")
def calibration_sample_verdict(sender, verdict, **kwargs):
    if not calibration_may_sample(verdict):
        return
    # Held-out golden traces never feed calibration.
    if not traces_visible(None).filter(pk=verdict.trace_id).exists():
        return
    if not calibration_sample_claim(verdict):
        return
    verdict_item_enqueue(
        verdict=verdict,
        reason=ReviewReason.CALIBRATION,
        detail=f"Blind calibration sample for {verdict.rubric_version} under {verdict.config}.",
        queue=calibration_queue(),
    )


@receiver(post_save, sender=ReviewItem, dispatch_uid="reviews.calibration_label")
def calibration_label_recorded(sender, instance, created, update_fields=None, **kwargs):
    if created or instance.reason != ReviewReason.CALIBRATION or instance.verdict_id is None:
        return
    # Claims and lock renewals save the item too; only a change of outcome re-measures.
    if update_fields is not None and not {"status", "resolved_score"} & set(update_fields):
        return
    verdict = instance.verdict
    pairs = calibration_label_pairs(verdict.rubric_version, verdict.config)
    judge_calibration_update(verdict.rubric_version, verdict.config, pairs)
