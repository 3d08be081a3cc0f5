"""An OTLP logs request's records joined to the spans they name: a stored span is read back,
rebuilt with its records (traces.ingest.span_logs) and stored again through spans_store; the
records of a span not stored yet wait as PendingSpanLog rows for span ingest to join."""

from __future__ import annotations

from django.db import transaction

from traces.ingest.records import SpanRecord
from traces.ingest.span_logs import record_with_logs
from traces.ingest.store import spans_store
from traces.ingest.trace_rows import traces_lock
from traces.masking.records import events_mask
from traces.masking.rules import masker_for
from traces.models import PendingSpanLog, Project, SourceFormat, Span


def span_logs_join(project: Project, events_by_span: dict[tuple[str, str], list[dict]]):
    """Join log events to their stored spans and keep the rest waiting; (joined, waiting)
    counts of records. Runs in one transaction with the traces locked, as span ingest does."""
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
