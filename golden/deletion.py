"""Deleting golden examples: one, chosen ids, or a list filter's worth, all or nothing.

Dataset versions keep their copies (an entry loses only its link to the example), so earlier
versions, their exports and the eval runs made on them are unchanged. Each example's content
stays in its audit event. The traces the examples held out are released by one held-out sync
for the whole deletion, not one per example. A review item an example was promoted from is
promotable again.
"""

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Exists, OuterRef, Q

from accounts.roles import CURATOR, has_role
from core.errors import ApplicationError
from golden.content import example_content
from golden.held_out_traces import example_traces, held_out_sync_deferred, traces_held_out_sync
from golden.models import DatasetVersionEntry, GoldenExample
from reviews.audit import audit_events_record

# Twice what one "add them to golden as drafts" makes, so a mistaken batch goes in one step.
MAX_EXAMPLES_DELETED_AT_ONCE = 1000
# Examples read, audited and deleted together: bounds memory, not the transaction.
_CHUNK = 200


@dataclass(frozen=True)
class DeletionPreview:
    """What deleting a set of examples touches, for the confirmation page."""

    count: int
    drafts: int
    held_out: int
    in_versions: int  # examples a dataset version holds a copy of
    from_review_items: int  # their items go back to the promote list

    @property
    def too_many(self) -> bool:
        return self.count > MAX_EXAMPLES_DELETED_AT_ONCE


@dataclass(frozen=True)
class DeletionReport:
    deleted: int
    released_traces: int  # traces no longer held out


def examples_deletion_preview(examples) -> DeletionPreview:
    in_version = Exists(DatasetVersionEntry.objects.filter(example=OuterRef("pk")))
    counts = examples.order_by().aggregate(
        count=Count("pk"),
        drafts=Count("pk", filter=Q(draft=True)),
        held_out=Count("pk", filter=Q(held_out=True)),
        in_versions=Count("pk", filter=Q(in_version)),
        from_review_items=Count("pk", filter=Q(source_review_item__isnull=False)),
    )
    return DeletionPreview(**counts)


def golden_examples_delete(*, examples, user) -> DeletionReport:
    """Delete these examples (a queryset the user may see); refused when none or too many."""
    if not has_role(user, CURATOR):
        raise ApplicationError("Deleting golden examples needs the curator role.", status_code=403)
    with transaction.atomic():
        # Locked in id order, so two deletions that overlap take turns instead of deadlocking.
        pks = list(
            GoldenExample.objects.select_for_update()
            .filter(pk__in=list(examples.order_by().values_list("pk", flat=True)))
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        if not pks:
            raise ApplicationError(
                "No examples to delete: the selection is empty.", field="examples"
            )
        if len(pks) > MAX_EXAMPLES_DELETED_AT_ONCE:
            raise ApplicationError(
                f"{len(pks)} examples match; delete at most {MAX_EXAMPLES_DELETED_AT_ONCE} at "
                "once (narrow the filter).",
                field="examples",
            )
        held = example_traces(
            GoldenExample.objects.filter(pk__in=pks).only(
                "key", "task", "source_trace_id", "held_out"
            )
        )
        with held_out_sync_deferred():
            for start in range(0, len(pks), _CHUNK):
                chunk = pks[start : start + _CHUNK]
                rows = GoldenExample.objects.filter(pk__in=chunk).select_related("outcome_rubric")
                audit_events_record(
                    actor=user,
                    action="golden_example_delete",
                    object_type="golden_example",
                    before_by_id={example.pk: _audited(example) for example in rows},
                )
                GoldenExample.objects.filter(pk__in=chunk).delete()
        released = traces_held_out_sync(held)
    return DeletionReport(deleted=len(pks), released_traces=released)


def _audited(example: GoldenExample) -> dict:
    """Enough to write the example again by hand: its content and where it came from."""
    return {
        **example_content(example),
        "draft": example.draft,
        "origin": example.origin,
        "source_trace": example.source_trace_id,
        "source_review_item": example.source_review_item_id,
    }
