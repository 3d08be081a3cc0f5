"""Deleting a trace-list filter's traces in the background, past the cap of one request.

A curator asks; a TraceDeletion row records the filter, the newest trace it may touch and how
many matched. A worker deletes a chunk a transaction, in id order, through the same lock and
keepers as a request's deletion (traces.deletion), and moves the row's cursor in that
transaction: a worker killed between chunks loses nothing and deletes nothing twice; the
message comes back (acks_late) or the minute's sweep publishes it again. Whoever asked must
still be a curator when each chunk runs; a curator can stop it between chunks.
"""

import time
from datetime import timedelta

from django.db import transaction
from django.db.models import Max
from django.http import QueryDict
from django.utils import timezone

from accounts.roles import CURATOR, has_role
from core.errors import ApplicationError
from core.publish import task_publish
from traces.deletion import kept_counted, traces_chunk_delete
from traces.filters import traces_for_query
from traces.models import Trace, TraceDeletion
from traces.selectors import traces_visible

# Traces one transaction deletes; a lock on them is held that long.
CHUNK = 500
# A task deletes chunks this long, then hands over to a new message, so one deletion does not
# hold a worker thread for minutes.
RUN_SECONDS = 20.0
# A live deletion untouched this long lost its message (or waits behind a long queue); the
# sweep publishes it again, at most once in this long.
STALE_AFTER = timedelta(minutes=5)
KEPT_SAMPLE = 20

Status = TraceDeletion.Status


def trace_deletion_start(*, user, traces, query: QueryDict, up_to: int | None = None):
    """Record a deletion of `traces` (the user's view of the filter `query`), those no newer
    than trace `up_to` (default: the newest that matches now), and publish it on commit."""
    from traces.tasks import trace_deletion_task

    if not has_role(user, CURATOR):
        raise ApplicationError("Deleting traces needs the curator role.", status_code=403)
    if up_to is None:
        up_to = traces.order_by().aggregate(newest=Max("pk"))["newest"]
    matched = traces.filter(pk__lte=up_to).order_by().count() if up_to else 0
    if not matched:
        raise ApplicationError("No traces to delete: the selection is empty.", field="filter")
    deletion = TraceDeletion.objects.create(
        created_by=user, query=query.urlencode(), up_to_trace_id=up_to, matched=matched
    )
    transaction.on_commit(lambda: task_publish(trace_deletion_task, deletion.pk))
    return deletion


def trace_deletion_run(deletion_id: int, seconds: float | None = None) -> bool:
    """Delete chunks for up to `seconds` (RUN_SECONDS); True when the deletion has more to do."""
    deadline = time.monotonic() + (RUN_SECONDS if seconds is None else seconds)
    while _chunk_delete(deletion_id):
        if time.monotonic() >= deadline:
            return True
    return False


def _chunk_delete(deletion_id: int) -> bool:
    """Delete the next chunk; False once the deletion is finished, stopped or failed."""
    with transaction.atomic():
        deletion = TraceDeletion.objects.select_for_update().filter(pk=deletion_id).first()
        if deletion is None or not deletion.live:
            return False
        user = deletion.created_by
        try:
            if user is None or not has_role(user, CURATOR):
                raise ApplicationError("Whoever asked for it is no longer a curator.")
            ids = list(
                _deletion_traces(deletion, user)
                .filter(pk__gt=deletion.after_trace_id, pk__lte=deletion.up_to_trace_id)
                .order_by("pk")
                .values_list("pk", flat=True)[:CHUNK]
            )
        except ApplicationError as exc:
            _finish(deletion, Status.FAILED, error=exc.message)
            return False
        if not ids:
            _finish(deletion, Status.DONE)
            return False
        deleted, kept = traces_chunk_delete(ids, user)
        deletion.after_trace_id = ids[-1]
        deletion.deleted += deleted
        deletion.kept += len(kept)
        for label, count in kept_counted(kept).items():
            deletion.kept_by[label] = deletion.kept_by.get(label, 0) + count
        room = KEPT_SAMPLE - len(deletion.kept_sample)
        deletion.kept_sample.extend(sorted(kept)[: max(room, 0)])
        deletion.status = Status.RUNNING
        deletion.save()
    return True


def _deletion_traces(deletion: TraceDeletion, user):
    """The traces the deletion's filter selects now, as the person who asked sees them."""
    visible = traces_visible(user, Trace.objects.all())
    return traces_for_query(visible, QueryDict(deletion.query))


def _finish(deletion: TraceDeletion, status: str, error: str = "") -> None:
    deletion.status = status
    deletion.error = error
    deletion.finished_at = timezone.now()
    deletion.save()


def trace_deletion_stop(*, deletion: TraceDeletion, user) -> TraceDeletion:
    """Stop a live deletion between chunks; what is deleted stays deleted."""
    if not has_role(user, CURATOR):
        raise ApplicationError("Stopping a deletion needs the curator role.", status_code=403)
    with transaction.atomic():
        deletion = TraceDeletion.objects.select_for_update().get(pk=deletion.pk)
        if not deletion.live:
            raise ApplicationError(
                f"Deletion #{deletion.pk} is {deletion.get_status_display().lower()} already.",
                status_code=409,
            )
        _finish(deletion, Status.STOPPED, error=f"Stopped by {user.get_username()}.")
    return deletion


def trace_deletions_stale_ids(now=None) -> list[int]:
    """Live deletions no worker touched lately: their message was lost or never published.
    Each is marked touched, so a deletion waiting behind a long queue is not published again
    every minute."""
    now = now or timezone.now()
    stale = TraceDeletion.objects.filter(
        status__in=(Status.WAITING, Status.RUNNING), updated_at__lt=now - STALE_AFTER
    )
    ids = list(stale.values_list("pk", flat=True))
    TraceDeletion.objects.filter(pk__in=ids).update(updated_at=now)
    return ids
