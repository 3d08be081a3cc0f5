from datetime import timedelta

from celery import shared_task

from traces.completion import trace_complete, traces_settled_ids
from traces.retention import RETENTION_BATCH, traces_expire
from traces.search.documents import search_documents_build, search_documents_stale_ids

SWEEP_BATCH = 500


@shared_task(acks_late=True, ignore_result=True)
def trace_settle_sweep_task() -> int:
    """Send trace_completed for settled traces; a full batch re-enqueues the sweep."""
    ids = traces_settled_ids(limit=SWEEP_BATCH)
    completed = sum(trace_complete(trace_id) for trace_id in ids)
    if len(ids) == SWEEP_BATCH:
        trace_settle_sweep_task.delay()
    return completed


SEARCH_BATCH = 200


@shared_task(acks_late=True, ignore_result=True)
def search_documents_refresh_task(created_within_seconds: int | None = None) -> int:
    """Build the search documents of quiet stale traces (created that recently, if given);
    a full batch re-enqueues the task."""
    within = timedelta(seconds=created_within_seconds) if created_within_seconds else None
    ids = search_documents_stale_ids(limit=SEARCH_BATCH, created_within=within)
    built = search_documents_build(ids)
    if len(ids) == SEARCH_BATCH:
        search_documents_refresh_task.delay(created_within_seconds)
    return built


@shared_task(acks_late=True, ignore_result=True)
def trace_retention_task() -> int:
    """Remove one batch of traces past their project's retention; a full batch goes on."""
    removed = traces_expire(limit=RETENTION_BATCH)
    if removed == RETENTION_BATCH:
        trace_retention_task.delay()
    return removed
