"""OTLP log records joined to the spans they name, whichever arrives first.

A record names its span by trace and span id. When the span is stored, it is read back, rebuilt
with the records as its events (through the same conventions as any span: content from
`gen_ai.*.message` / `gen_ai.choice` events, the whole call from
`gen_ai.client.inference.operation.details`) and stored again in the span's place, so the
trace's task, answer, tokens, cost and session totals follow as for any late span. When the
span is not stored yet, the records wait as PendingSpanLog rows, and span ingest
(ingest.store) joins them when it comes. The records themselves are kept on the span under
`otel.logs`.

Three things keep a waiting record from waiting forever or costing every request:

- Span ingest asks for waiting records only when its project has some: whether it has is
  remembered for PENDING_REMEMBERED_SECONDS in each process (a project that never sent logs
  costs one dictionary lookup a request).
- A record can miss its span: one stored meanwhile by a process that remembered "none", or one
  committed in the same instant as the record (each transaction saw the other's table empty).
  pending_logs_join_late, run by the settle sweep before traces complete, joins every waiting
  record whose span is stored by now.
- A record whose span never comes expires after settings.PENDING_LOG_HOURS:
  pending_logs_expire (the retention job) counts it on its project (log_records_unjoined, on
  the projects page) and logs it, then deletes it.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core.remembered import Remembered
from traces.ingest.pending_rows import pending_logs_read
from traces.ingest.records import SpanRecord, span_record_build
from traces.models import PendingSpanLog, Project, SpanKind, SpanStatus

logger = logging.getLogger(__name__)

# The event that carries a whole model call in its attributes, which become the span's.
OPERATION_DETAILS = "gen_ai.client.inference.operation.details"
LOGS_KEY = "otel.logs"
OFFERED_TOOLS = "gen_ai.tool.definitions"
# How long a process trusts what it read of a project having waiting records; a record a
# process missed meanwhile is joined by pending_logs_join_late.
PENDING_REMEMBERED_SECONDS = 5.0
pending_logs_known: Remembered[bool] = Remembered(PENDING_REMEMBERED_SECONDS)
# Waiting records the late join reads at a time, oldest first.
LATE_JOIN_BATCH = 500


def record_with_logs(record: SpanRecord, events: list[dict]) -> SpanRecord:
    """The span rebuilt with these log events: the content, usage and failure they give."""
    attributes = dict(record.attributes)
    kept = list(attributes.get(LOGS_KEY) or [])
    for event in events:
        if event["name"] == OPERATION_DETAILS and record.kind != SpanKind.LLM:
            # A model call's details logged where the call is not: OpenLIT logs a streamed
            # call's once the stream is read, in its caller's span. Kept, not read as this
            # span's call; only the tools the call was offered, which the trace was, are read.
            offered = (event.get("attributes") or {}).get(OFFERED_TOOLS)
            if offered is not None:
                attributes.setdefault(OFFERED_TOOLS, offered)
            kept.append(event)
        elif event["name"] == OPERATION_DETAILS:
            for key, value in (event.get("attributes") or {}).items():
                attributes.setdefault(key, value)
            # Its attributes are the span's now; the record notes only that it came.
            kept.append({"name": event["name"], "time": event.get("time"), "attributes": {}})
        else:
            kept.append(event)
    attributes[LOGS_KEY] = kept
    span_events = list(attributes.get("otel.events") or [])
    span_events += [event for event in kept if event["name"] != OPERATION_DETAILS]
    return span_record_build(
        trace_external_id=record.trace_external_id,
        span_id=record.span_id,
        parent_span_id=record.parent_span_id,
        name=record.name,
        attributes=attributes,
        declared_kind=record.kind,
        started_at=record.started_at,
        ended_at=record.ended_at,
        input_value=record.input,
        output_value=record.output,
        events=span_events,
        is_error=record.status == SpanStatus.ERROR,
        error_message=record.error_message,
    )


def pending_logs_waiting(project_pk: int) -> bool:
    """Whether the project has waiting records, as this process last read it."""
    return pending_logs_known.get(
        project_pk, lambda: PendingSpanLog.objects.filter(project_id=project_pk).exists()
    )


def pending_logs_apply(
    project: Project, records: list[SpanRecord]
) -> tuple[list[SpanRecord], dict[tuple[str, str], list[int]]]:
    """The records with the log records that waited for them joined in, and the waiting rows
    each took by (trace external id, span id). The caller deletes the rows of the records it
    stores as new (pending_logs_taken_delete); a record of a span already stored is not stored
    again, so its rows stay for pending_logs_join_late to join to the stored span."""
    if not records or not pending_logs_waiting(project.pk):
        return records, {}
    external_ids = list({record.trace_external_id: None for record in records})
    pending = pending_logs_read(project.pk, external_ids)
    if not pending:
        return records, {}
    waiting: dict[tuple[str, str], list[dict]] = {}
    taken: dict[tuple[str, str], list[int]] = {}
    wanted = {(record.trace_external_id, record.span_id) for record in records}
    for pk, external_id, span_id, events in sorted(pending):
        if (external_id, span_id) in wanted:
            waiting.setdefault((external_id, span_id), []).extend(events)
            taken.setdefault((external_id, span_id), []).append(pk)
    if not taken:
        return records, {}
    joined = [
        record_with_logs(record, waiting[key])
        if (key := (record.trace_external_id, record.span_id)) in waiting
        else record
        for record in records
    ]
    return joined, taken


def pending_logs_taken_delete(pks: list[int]) -> None:
    if pks:
        PendingSpanLog.objects.filter(pk__in=pks).delete()


def pending_logs_expire(now=None) -> int:
    """Count the records that waited longer than settings.PENDING_LOG_HOURS on their project
    (Project.log_records_unjoined) and delete them; the number of log records expired."""
    cutoff = (now or timezone.now()) - timedelta(hours=settings.PENDING_LOG_HOURS)
    expired = 0
    with transaction.atomic():
        rows = list(
            PendingSpanLog.objects.select_for_update(skip_locked=True)
            .filter(received_at__lt=cutoff)
            .values_list("pk", "project_id", "events")
        )
        if not rows:
            return 0
        by_project: dict[int, int] = defaultdict(int)
        for _, project_id, events in rows:
            by_project[project_id] += len(events)
        for project_id, count in by_project.items():
            Project.objects.filter(pk=project_id).update(
                log_records_unjoined=F("log_records_unjoined") + count
            )
            logger.warning(
                "%d OTLP log records of project %d named spans that never came in %d hours; "
                "counted on the project and removed",
                count,
                project_id,
                settings.PENDING_LOG_HOURS,
            )
            expired += count
        pending_logs_taken_delete([pk for pk, _, _ in rows])
    return expired
