"""OTLP log records joined to the spans they name, whichever arrives first.

A record names its span by trace and span id. When the span is stored, it is read back, rebuilt
with the records as its events (through the same conventions as any span: content from
`gen_ai.*.message` / `gen_ai.choice` events, the whole call from
`gen_ai.client.inference.operation.details`) and stored again in the span's place, so the
trace's task, answer, tokens, cost and session totals follow as for any late span. When the
span is not stored yet, the records wait as PendingSpanLog rows, and span ingest
(ingest.store) joins them when it comes. The records themselves are kept on the span under
`otel.logs`.
"""

from __future__ import annotations

from django.db import transaction

from traces.ingest.pending_rows import pending_logs_read
from traces.ingest.records import SpanRecord, span_record_build
from traces.ingest.trace_rows import traces_lock
from traces.masking.records import events_mask
from traces.masking.rules import masker_for
from traces.models import PendingSpanLog, Project, SourceFormat, Span, SpanStatus

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


def span_logs_join(project: Project, events_by_span: dict[tuple[str, str], list[dict]]):
    """Join log events to their stored spans and keep the rest waiting; (joined, waiting)
    counts of records. Runs in one transaction with the traces locked, as span ingest does."""
    from traces.ingest.store import spans_store

    masker = masker_for(project.pk)
    if masker is not None:
        events_by_span = events_mask(masker, events_by_span)
    with transaction.atomic():
        traces = {
            row["external_id"]: row
            for row in traces_lock(project.pk, sorted({ext for ext, _ in events_by_span}))
        }
        stored = {}
        if traces:
            spans = Span.objects.filter(
                trace_id__in=[row["pk"] for row in traces.values()],
                trace_day__in={row["spans_day"] for row in traces.values()},
                span_id__in={span_id for _, span_id in events_by_span},
            )
            by_pk = {row["pk"]: ext for ext, row in traces.items()}
            for span in spans:
                key = (by_pk[span.trace_id], span.span_id)
                if key in events_by_span:
                    stored[key] = span
        rebuilt = [
            record_with_logs(_record_of(span, key[0]), events_by_span[key])
            for key, span in stored.items()
        ]
        waiting = [
            PendingSpanLog(project=project, trace_external_id=ext, span_id=span_id, events=events)
            for (ext, span_id), events in events_by_span.items()
            if (ext, span_id) not in stored
        ]
        PendingSpanLog.objects.bulk_create(waiting)
        if rebuilt:
            # The span is stored again in its own place, read with its records.
            Span.objects.filter(pk__in=[span.pk for span in stored.values()]).delete()
            spans_store(project, rebuilt, SourceFormat.OTLP)
    joined = sum(len(events_by_span[key]) for key in stored)
    return joined, sum(len(item.events) for item in waiting)


def _record_of(span: Span, external_id: str) -> SpanRecord:
    return SpanRecord(
        external_id,
        span.span_id,
        span.parent_span_id,
        span.name,
        span.kind,
        span.started_at,
        span.ended_at,
        span.input,
        span.output,
        dict(span.attributes or {}),
        span.status,
        span.error_message,
        span.tool_name,
        span.tool_call_id,
        span.model,
        span.input_tokens,
        span.output_tokens,
        span.cost_usd,
        span.component,
    )
