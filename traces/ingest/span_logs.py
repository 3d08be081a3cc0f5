"""OTLP log records joined to the spans they name, whichever arrives first.

A record names its span by trace and span id. When the span is stored, it is read back, rebuilt
with the records as its events (through the same conventions as any span: content from
`gen_ai.*.message` / `gen_ai.choice` events, the whole call from
`gen_ai.client.inference.operation.details`) and stored again in the span's place, so the
trace's task, answer, tokens, cost and session totals follow as for any late span. When the
span is not stored yet, the records wait as PendingSpanLog rows, and span ingest
(ingest.store) joins them when it comes. The records themselves are kept on the span under
`otel.logs`.

This module is what span ingest (ingest.store) asks; joining a logs request to spans already
stored, which stores them again, is traces.ingest.logs_join.
"""

from __future__ import annotations

from traces.ingest.pending_rows import pending_logs_read
from traces.ingest.records import SpanRecord, span_record_build
from traces.models import PendingSpanLog, Project, SpanStatus

# The event that carries a whole model call in its attributes, which become the span's.
OPERATION_DETAILS = "gen_ai.client.inference.operation.details"
LOGS_KEY = "otel.logs"


def record_with_logs(record: SpanRecord, events: list[dict]) -> SpanRecord:
    """The span rebuilt with these log events: the content, usage and failure they give."""
    attributes = dict(record.attributes)
    kept = list(attributes.get(LOGS_KEY) or [])
    for event in events:
        if event["name"] == OPERATION_DETAILS:
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


def pending_logs_apply(project: Project, records: list[SpanRecord]) -> list[SpanRecord]:
    """The records with the log records that waited for them joined in (those are deleted)."""
    if not records:
        return records
    external_ids = list({record.trace_external_id: None for record in records})
    pending = pending_logs_read(project.pk, external_ids)
    if not pending:
        return records
    waiting: dict[tuple[str, str], list[dict]] = {}
    taken = []
    wanted = {(record.trace_external_id, record.span_id) for record in records}
    for pk, external_id, span_id, events in sorted(pending):
        if (external_id, span_id) in wanted:
            waiting.setdefault((external_id, span_id), []).extend(events)
            taken.append(pk)
    if not taken:
        return records
    PendingSpanLog.objects.filter(pk__in=taken).delete()
    return [
        record_with_logs(record, waiting[key])
        if (key := (record.trace_external_id, record.span_id)) in waiting
        else record
        for record in records
    ]
