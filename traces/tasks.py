import logging
import time
from datetime import timedelta

from celery import shared_task

from core.publish import task_publish, tasks_publish_each
from traces.completion import trace_complete, traces_settled_ids
from traces.deletion_jobs import trace_deletion_run, trace_deletions_stale_ids
from traces.ingest.logs_join import pending_logs_join_late
from traces.ingest.span_logs import pending_logs_expire
from traces.retention import RETENTION_BATCH, traces_expire
from traces.retention_days import SpansTableBusy, spans_day_expire_oldest
from traces.search.documents import search_documents_build, search_documents_stale_ids
from traces.span_partitions import span_partitions_create_ahead

logger = logging.getLogger(__name__)

SWEEP_BATCH = 500


@shared_task(acks_late=True, ignore_result=True)
def trace_settle_sweep_task() -> int:
    """Send trace_completed for settled traces; a full batch re-enqueues the sweep. Log records
    that missed their span are joined first, so a trace is judged with its content."""
    pending_logs_join_late()
    ids = traces_settled_ids(limit=SWEEP_BATCH)
    completed = sum(trace_complete(trace_id) for trace_id in ids)
    if len(ids) == SWEEP_BATCH:
        trace_settle_sweep_task.delay()
    return completed


SEARCH_BATCH = 200
# One run builds batches for about this long before it hands over to a new message: a
# backlog (a restore, a burst) then costs one message per ten seconds, not one per batch.
SEARCH_RUN_SECONDS = 10.0


@shared_task(acks_late=True, ignore_result=True)
def search_documents_refresh_task(created_within_seconds: int | None = None) -> int:
    """Build the search documents of quiet stale traces (created that recently, if given),
    batch after batch for SEARCH_RUN_SECONDS; a backlog left re-enqueues the task."""
    within = timedelta(seconds=created_within_seconds) if created_within_seconds else None
    deadline = time.monotonic() + SEARCH_RUN_SECONDS
    built = 0
    while True:
        ids = search_documents_stale_ids(limit=SEARCH_BATCH, created_within=within)
        built += search_documents_build(ids)
        if len(ids) < SEARCH_BATCH:
            return built
        if time.monotonic() >= deadline:
            search_documents_refresh_task.delay(created_within_seconds)
            return built


@shared_task(acks_late=True, ignore_result=True)
def trace_retention_task() -> int:
    """Make the spans partitions of the week ahead and drop the oldest expired day of spans
    (PostgreSQL), else remove one batch of traces past their project's retention; either goes
    on while there may be more. Log records whose span never came are counted and removed."""
    span_partitions_create_ahead()
    pending_logs_expire()
    try:
        dropped = spans_day_expire_oldest()
    except SpansTableBusy:
        logger.warning("the spans table stayed busy; retention tries again at its next run")
        return 0
    if dropped is not None:
        trace_retention_task.delay()
        return dropped
    removed = traces_expire(limit=RETENTION_BATCH)
    if removed == RETENTION_BATCH:
        trace_retention_task.delay()
    return removed


@shared_task(acks_late=True, ignore_result=True)
def trace_deletion_task(deletion_id: int) -> None:
    """Delete a background deletion's traces for a while; a new message takes over after."""
    if trace_deletion_run(deletion_id):
        task_publish(trace_deletion_task, deletion_id)


@shared_task(acks_late=True, ignore_result=True)
def trace_deletions_resume_task() -> int:
    """Publish again the live deletions no worker has touched lately."""
    return tasks_publish_each(trace_deletion_task, trace_deletions_stale_ids())
