"""What a person does to a trace from its page, outside any queue: flag it for review, or
score it directly. A direct score is an annotation on the trace's "scored on the trace page"
item for the rubric version (made on first use, in the rubric's queue), so it is audited,
shown wherever annotations are, and counted in the queue's agreement like any other."""

from django.db import transaction
from django.utils import timezone

from accounts.roles import ANNOTATOR, has_role
from core.errors import ApplicationError
from judges.models import Verdict
from reviews.audit import annotation_snapshot, audit_event_record
from reviews.models import Annotation, ReviewItem, ReviewReason, ReviewStatus
from reviews.scoring import explanation_clean, failure_tags_clean, score_with_criteria
from reviews.services import (
    review_annotation_write,
    review_item_enqueue,
    review_item_lock_for_write,
)


def review_item_flag_trace(*, trace, user, note="", rubric_version=None) -> ReviewItem:
    """A person sends a trace (or a verdict's trace) to the review queue."""
    if not has_role(user, ANNOTATOR):
        raise ApplicationError("Flagging needs the annotator role.", status_code=403)
    with transaction.atomic():
        item = review_item_enqueue(
            trace=trace,
            reason=ReviewReason.FLAGGED,
            rubric_version=rubric_version,
            detail=(note or "").strip()[:2000] or f"Flagged by {user.get_username()}",
        )
        audit_event_record(actor=user, action="review_item.flag_trace", obj=item, after=None)
        return item


def trace_score_direct(
    *,
    trace,
    user,
    rubric_version,
    score=None,
    explanation="",
    failure_tags=(),
    criteria_results=None,
    blind=False,
) -> Annotation:
    """Score a trace under a rubric version without a queue; a person's new score replaces
    their earlier one on the same trace and rubric version (both kept in the audit log).

    `blind` says the page hid what the judges said when the person answered.
    """
    if not has_role(user, ANNOTATOR):
        raise ApplicationError("Scoring traces needs the annotator role.", status_code=403)
    if rubric_version is None:
        raise ApplicationError("Choose the rubric to score against.", field="rubric_version")
    explanation = explanation_clean(explanation)
    failure_tags = failure_tags_clean(failure_tags)
    with transaction.atomic():
        item = review_item_enqueue(
            trace=trace,
            reason=ReviewReason.DIRECT,
            rubric_version=rubric_version,
            # The judge's verdict under the same rubric, so the score counts toward
            # judge-vs-human agreement as a queue answer would.
            verdict=Verdict.objects.filter(trace=trace, rubric_version=rubric_version, session=None)
            .order_by("-created_at")
            .first(),
            detail="Scored on the trace page.",
        )
        item = review_item_lock_for_write(item)
        if item.status == ReviewStatus.CLOSED:
            raise ApplicationError(
                f"Review item #{item.pk} for this trace is closed.", field="trace", status_code=409
            )
        score, criteria = score_with_criteria(item, score, criteria_results)
        _own_earlier_answers_replace(item, user)
        return review_annotation_write(
            item=item,
            user=user,
            score=score,
            criteria_results=criteria,
            explanation=explanation,
            failure_tags=failure_tags,
            promote=False,
            is_adjudication=False,
            action="review_item.score_direct",
            blind=blind,
        )


def _own_earlier_answers_replace(item: ReviewItem, user) -> None:
    """Mark the person's active answers on the item replaced (undone), each audited."""
    now = timezone.now()
    for earlier in item.annotations.filter(annotator=user, undone_at__isnull=True):
        before = annotation_snapshot(earlier)
        earlier.undone_at = now
        earlier.save(update_fields=["undone_at"])
        audit_event_record(
            actor=user,
            action="annotation.replace",
            obj=item,
            before=before,
            after=annotation_snapshot(earlier),
        )
