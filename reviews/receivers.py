"""Receives the judges -> reviews hand-off: a verdict that needs a person becomes queue items."""

import random

from django.dispatch import receiver

from judges.models import VerdictStatus
from judges.signals import criteria_answers_wanted, verdict_needs_review, verdict_written
from metrics.signals import guardrail_policy_changed, tool_effect_changed
from reviews.audit import audit_event_record, audit_events_record
from reviews.models import ReviewReason
from reviews.selectors import criteria_answers_by_people
from reviews.services import queue_for_rubric, review_item_enqueue, verdict_item_enqueue
from traces.models import FeedbackKind
from traces.signals import feedback_received, traces_deleted


@receiver(verdict_needs_review, dispatch_uid="reviews.enqueue_verdict")
def enqueue_verdict_for_review(sender, verdict, reasons, detail="", **kwargs):
    for reason in reasons:
        verdict_item_enqueue(verdict=verdict, reason=reason, detail=detail)


@receiver(verdict_written, dispatch_uid="reviews.audit_sample")
def sample_agreed_verdict_for_audit(sender, verdict, **kwargs):
    """A random share of agreed verdicts (the rubric queue's audit rate) is checked by people."""
    if verdict.status != VerdictStatus.AGREED:
        return
    queue = queue_for_rubric(verdict.rubric_version.rubric_id, verdict.trace.project_id)
    if queue.audit_sample_rate <= 0 or random.random() >= queue.audit_sample_rate:
        return
    verdict_item_enqueue(
        verdict=verdict,
        reason=ReviewReason.AUDIT_SAMPLE,
        detail=f"Random audit sample ({queue.audit_sample_rate:.0%} of agreed verdicts).",
        queue=queue,
    )


@receiver(tool_effect_changed, dispatch_uid="reviews.audit_tool_effect")
def audit_tool_effect_change(sender, effect, user, before, **kwargs):
    """A curator's change to a tool's effect changes how runs are scored, so it is audited."""
    audit_event_record(
        actor=user,
        action="tool_effect_set",
        obj=effect,
        before=before,
        after={"tool": effect.tool, "effect": effect.effect, "source": effect.source},
    )


@receiver(guardrail_policy_changed, dispatch_uid="reviews.audit_guardrail_policy")
def audit_guardrail_policy_change(sender, policy, user, before, **kwargs):
    """Guardrail thresholds decide which agent calls are blocked and which traces are flagged."""
    audit_event_record(
        actor=user,
        action="guardrail_policy_set",
        obj=policy,
        before=before,
        after={
            "loop_repeats": policy.loop_repeats,
            "max_steps": policy.max_steps,
            "tool_prerequisites": policy.tool_prerequisites,
        },
    )


@receiver(traces_deleted, dispatch_uid="reviews.audit_trace_delete")
def audit_traces_deleted(sender, user, rows, **kwargs):
    """What identified each deleted trace, not its content: a deletion may be an erasure."""
    audit_events_record(
        actor=user,
        action="trace_delete",
        object_type="traces.trace",
        before_by_id={
            row["pk"]: {
                "external_id": row["external_id"],
                "project": row["project__slug"],
                "span_count": row["span_count"],
                "received_at": row["created_at"].isoformat(),
            }
            for row in rows
        },
    )


@receiver(feedback_received, dispatch_uid="reviews.thumbs_down")
def enqueue_thumbs_down(sender, feedback, **kwargs):
    """Projects that ask for it get every end-user thumbs-down in their review queue."""
    trace = feedback.trace
    if not trace.project.route_thumbs_down_to_review:
        return
    if feedback.kind != FeedbackKind.THUMBS or feedback.value != 0.0:
        return
    comment = f": {feedback.comment[:300]}" if feedback.comment else ""
    review_item_enqueue(
        trace=trace,
        reason=ReviewReason.USER_FEEDBACK,
        detail=f"Thumbs-down from {feedback.end_user or 'an end user'}{comment}",
    )


@receiver(criteria_answers_wanted, dispatch_uid="reviews.criteria_answers")
def answer_criteria_from_annotations(sender, version, **kwargs):
    return criteria_answers_by_people(version)
