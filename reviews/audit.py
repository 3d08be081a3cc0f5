"""AuditEvent rows: who did what to which object, with the state before and after; and reads."""

from core.distinct_sql import values_distinct
from reviews.models import Annotation, AuditEvent, ReviewItem


def review_item_snapshot(item: ReviewItem) -> dict:
    """The fields of an item that a resolution, undo or bulk action can change."""
    return {
        "status": item.status,
        "resolved_score": item.resolved_score,
        "needs_curator": item.needs_curator,
        "claimed_by": item.claimed_by_id,
        "assigned_to": item.assigned_to_id,
    }


def annotation_snapshot(annotation: Annotation) -> dict:
    return {
        "annotation": annotation.pk,
        "score": annotation.score,
        "explanation": annotation.explanation,
        "failure_tags": list(annotation.failure_tags),
        "is_adjudication": annotation.is_adjudication,
        "promoted": annotation.promoted,
        "undone": annotation.undone_at is not None,
    }


def audit_event_record(
    *,
    actor,
    action: str,
    obj=None,
    object_type: str = "",
    object_id="",
    before=None,
    after=None,
) -> AuditEvent:
    """Write one audit event, about a model instance (`obj`) or a named object of any stage
    (`object_type`, `object_id`, e.g. a dataset import). An anonymous actor is stored as none."""
    if obj is not None:
        object_type, object_id = obj._meta.label_lower, obj.pk
    return AuditEvent.objects.create(
        actor=actor if actor is not None and actor.is_authenticated else None,
        action=action,
        object_type=object_type,
        object_id=str(object_id),
        before=before,
        after=after,
    )


def audit_events_record(*, actor, action: str, object_type: str, before_by_id: dict) -> None:
    """One event per object of a bulk action, written together; each keeps its `before`."""
    actor = actor if actor is not None and actor.is_authenticated else None
    AuditEvent.objects.bulk_create(
        AuditEvent(
            actor=actor,
            action=action,
            object_type=object_type,
            object_id=str(object_id),
            before=before,
        )
        for object_id, before in before_by_id.items()
    )


# Newest first; audit_newest (and its per-action and per-person forms) serve it.
AUDIT_ORDER = ("-created_at", "-id")


def audit_events_filtered(*, person: str = "", item: int | None = None, action: str = ""):
    """Audit events newest first, filtered by the actor's username, a review item, an action."""
    events = AuditEvent.objects.select_related("actor").order_by(*AUDIT_ORDER)
    if person:
        events = events.filter(actor__username=person)
    if item is not None:
        events = events.filter(object_type=ReviewItem._meta.label_lower, object_id=str(item))
    if action:
        events = events.filter(action=action)
    return events


def audit_actions() -> list[str]:
    """Every action written so far, for the filter's choices (audit_action_newest leads with
    the action, so a skip scan reads one index entry an action)."""
    return values_distinct(AuditEvent, "action")
