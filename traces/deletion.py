"""Deleting traces a person asks to delete: one, chosen ids, or a trace-list filter's worth.

A trace goes with what it owns (spans, verdicts, judgments, red flags, feedback, search
entries), as retention removes it (traces.retention). What keeps a trace from retention keeps
it from this too: a golden example made from it, review items (people's labels), an eval run's
trial, a judge run still judging it or its session. Chosen ids are all or nothing: one kept
trace refuses the request, naming it and why. A filter deletes the traces nothing keeps and
reports the rest by reason. traces_deleted carries who deleted what to the audit log.
"""

from collections import Counter
from dataclasses import dataclass, field

from django.db import transaction

from accounts.roles import CURATOR, has_role
from core.errors import ApplicationError
from traces.models import Trace
from traces.retention import traces_delete, traces_kept_by
from traces.signals import traces_deleted

MAX_TRACES_DELETED_AT_ONCE = 1000
# Kept traces named in a refusal; the rest are counted.
KEPT_NAMED = 10


@dataclass(frozen=True)
class TraceDeletionPreview:
    """What deleting a set of traces would do, for the confirmation page."""

    count: int
    kept_by: dict[str, int]  # keeper's label -> traces it keeps
    kept_ids: frozenset[int]

    @property
    def deletable(self) -> int:
        return self.count - len(self.kept_ids)

    @property
    def too_many(self) -> bool:
        return self.count > MAX_TRACES_DELETED_AT_ONCE


@dataclass(frozen=True)
class TraceDeletionReport:
    deleted: int
    kept_ids: tuple[int, ...] = ()  # a filter's traces left in place
    kept_by: dict[str, int] = field(default_factory=dict)  # those, counted by reason


def kept_counted(kept: dict[int, list[str]]) -> dict[str, int]:
    return dict(Counter(label for labels in kept.values() for label in labels).most_common())


def _ids_at_most(traces) -> list[int]:
    """Up to MAX_TRACES_DELETED_AT_ONCE + 1 of these traces' ids: a larger set is only too many."""
    return list(traces.order_by().values_list("pk", flat=True)[: MAX_TRACES_DELETED_AT_ONCE + 1])


def traces_counted(traces) -> int:
    """How many traces a deletion of these would choose, as its preview counts them."""
    return len(_ids_at_most(traces))


def traces_deletion_preview(traces) -> TraceDeletionPreview:
    ids = _ids_at_most(traces)
    kept = traces_kept_by(ids) if len(ids) <= MAX_TRACES_DELETED_AT_ONCE else {}
    return TraceDeletionPreview(len(ids), kept_counted(kept), frozenset(kept))


def traces_delete_requested(
    *, traces, user, all_or_nothing: bool, field_name: str = "traces"
) -> TraceDeletionReport:
    """Delete these traces (a queryset the user may see). With `all_or_nothing` a kept trace
    refuses the whole request (409); without, the kept ones stay and are reported. Refusals
    name `field_name`, the input that chose the traces."""
    if not has_role(user, CURATOR):
        raise ApplicationError("Deleting traces needs the curator role.", status_code=403)
    with transaction.atomic():
        ids = _locked(_ids_at_most(traces))
        if not ids:
            raise ApplicationError("No traces to delete: the selection is empty.", field=field_name)
        if len(ids) > MAX_TRACES_DELETED_AT_ONCE:
            raise ApplicationError(
                f"More than {MAX_TRACES_DELETED_AT_ONCE} traces match; delete at most "
                f"{MAX_TRACES_DELETED_AT_ONCE} at once, or all of them in the background "
                "(POST /api/traces/deletions/, or the trace list's Delete them...).",
                field=field_name,
            )
        kept = traces_kept_by(ids)
        if kept and all_or_nothing:
            raise ApplicationError(_kept_text(kept), code="kept", field=field_name, status_code=409)
        deleted = _unkept_delete(ids, kept, user)
    return TraceDeletionReport(deleted, tuple(sorted(kept)), kept_counted(kept))


def traces_chunk_delete(ids: list[int], user) -> tuple[int, dict[int, list[str]]]:
    """In the caller's transaction: lock these traces and delete the ones nothing keeps.
    Returns how many went and, by trace, the labels of what keeps the rest."""
    locked = _locked(ids)
    kept = traces_kept_by(locked)
    return _unkept_delete(locked, kept, user), kept


def _locked(ids: list[int]) -> list[int]:
    # Locked in id order: a review item or trial made meanwhile waits for the deletion, then
    # fails its foreign key instead of being deleted with the trace.
    return list(
        Trace.objects.select_for_update(of=("self",))
        .filter(pk__in=ids)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def _unkept_delete(ids: list[int], kept: dict[int, list[str]], user) -> int:
    doomed = [pk for pk in ids if pk not in kept]
    if doomed:
        rows = list(
            Trace.objects.filter(pk__in=doomed)
            .order_by("pk")
            .values("pk", "external_id", "project__slug", "span_count", "created_at")
        )
        traces_delete(doomed)
        traces_deleted.send(sender=Trace, user=user, rows=rows)
    return len(doomed)


def _kept_text(kept: dict[int, list[str]]) -> str:
    named = sorted(kept)[:KEPT_NAMED]
    parts = [f"trace {pk} (by {' and '.join(kept[pk])})" for pk in named]
    more = len(kept) - len(named)
    rest = f"; and {more} more" if more > 0 else ""
    return f"Nothing was deleted; kept: {'; '.join(parts)}{rest}."
