"""Curator bulk actions on queue items: reassign, re-queue, close; one audit event per item."""

from django.db import transaction
from django.utils import timezone

from accounts.roles import ANNOTATOR, CURATOR, has_role
from core.errors import ApplicationError
from reviews.models import AuditEvent, ReviewItem, ReviewStatus

BULK_ACTIONS = ("reassign", "requeue", "close")
_AUDITED = ("status", "claimed_by_id", "assigned_to_id", "needs_curator")


def review_items_bulk_apply(*, items, action: str, user, assignee=None) -> int:
    """Apply one action to every item of the queryset (all that match a filter); return count."""
    if not has_role(user, CURATOR):
        raise ApplicationError("Bulk actions need the curator role.", status_code=403)
    if action not in BULK_ACTIONS:
        raise ApplicationError(f"Unknown bulk action {action!r}.", field="action")
    if action == "reassign" and (assignee is None or not has_role(assignee, ANNOTATOR)):
        raise ApplicationError("Pick an annotator to assign the items to.", field="assignee")
    changes: dict = {"claimed_by": None, "lock_expires_at": None}
    if action == "reassign":
        changes["assigned_to"] = assignee
    elif action == "requeue":
        changes.update(
            status=ReviewStatus.OPEN, resolved_at=None, resolved_score=None, needs_curator=False
        )
    else:
        changes.update(status=ReviewStatus.CLOSED)
    with transaction.atomic():
        before = {
            row["pk"]: row
            for row in items.select_for_update(of=("self",)).order_by().values("pk", *_AUDITED)
        }
        if not before:
            return 0
        count = ReviewItem.objects.filter(pk__in=list(before)).update(**changes)
        after_common = {
            "status": str(changes.get("status", "")) or None,
            "assigned_to_id": assignee.pk if assignee else None,
            "claimed_by_id": None,
        }
        now = timezone.now()
        AuditEvent.objects.bulk_create(
            [
                AuditEvent(
                    actor=user,
                    action=f"review_item.bulk_{action}",
                    object_type="reviews.reviewitem",
                    object_id=str(pk),
                    before={k: row[k] for k in _AUDITED},
                    after={
                        "status": after_common["status"] or row["status"],
                        "assigned_to_id": after_common["assigned_to_id"]
                        if action == "reassign"
                        else row["assigned_to_id"],
                        "claimed_by_id": None,
                        "at": now.isoformat(),
                    },
                )
                for pk, row in before.items()
            ],
            batch_size=1000,
        )
        return count
