"""Log records joined to spans already stored, which stores those spans again: a logs request
(span_logs_join) and the settle sweep's late join (pending_logs_join_late). Apart from
traces.ingest.span_logs, which span ingest asks, so the two never import each other."""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction

from traces.ingest.records import SpanRecord
from traces.ingest.span_logs import (
    LATE_JOIN_BATCH,
    pending_logs_known,
    pending_logs_taken_delete,
    record_with_logs,
)
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
        stored = _stored_spans_find(project, events_by_span)
        waiting = [
            PendingSpanLog(project=project, trace_external_id=ext, span_id=span_id, events=events)
            for (ext, span_id), events in events_by_span.items()
            if (ext, span_id) not in stored
        ]
        PendingSpanLog.objects.bulk_create(waiting)
        if waiting:
            # This process asks again at once (and after the commit, in case a request read
            # the table before it); others within PENDING_REMEMBERED_SECONDS, and the late
            # join covers what they store meanwhile.
            pending_logs_known.clear()
            transaction.on_commit(pending_logs_known.clear)
        _spans_rebuild(project, stored, events_by_span)
    joined = sum(len(events_by_span[key]) for key in stored)
    return joined, sum(len(item.events) for item in waiting)


def _stored_spans_find(project: Project, keys) -> dict[tuple[str, str], Span]:
    """The stored spans among these (trace external id, span id) keys. The caller holds a
    transaction; the traces are locked here, before anything else, as span ingest locks them."""
    traces = {
        row["external_id"]: row for row in traces_lock(project.pk, sorted({ext for ext, _ in keys}))
    }
    if not traces:
        return {}
    stored = {}
    spans = Span.objects.filter(
        trace_id__in=[row["pk"] for row in traces.values()],
        trace_day__in={row["spans_day"] for row in traces.values()},
        span_id__in={span_id for _, span_id in keys},
    )
    by_pk = {row["pk"]: ext for ext, row in traces.items()}
    for span in spans:
        key = (by_pk[span.trace_id], span.span_id)
        if key in keys:
            stored[key] = span
    return stored


def _spans_rebuild(project: Project, stored: dict, events_by_span: dict) -> None:
    """Store each stored span again in its own place, read with its log events."""
    if not stored:
        return
    rebuilt = [
        record_with_logs(_record_of(span, key[0]), events_by_span[key])
        for key, span in stored.items()
    ]
    Span.objects.filter(pk__in=[span.pk for span in stored.values()]).delete()
    spans_store(project, rebuilt, SourceFormat.OTLP)


def pending_logs_join_late(batch: int = LATE_JOIN_BATCH) -> int:
    """Join waiting records whose span is stored by now (oldest first, up to `batch`); the
    number of log records joined."""
    candidates = list(
        PendingSpanLog.objects.order_by("received_at", "pk").values_list(
            "project_id", "trace_external_id"
        )[:batch]
    )
    by_project: dict[int, set[str]] = defaultdict(set)
    for project_id, external_id in candidates:
        by_project[project_id].add(external_id)
    joined = 0
    for project in Project.objects.filter(pk__in=by_project):
        with transaction.atomic():
            external_ids = sorted(by_project[project.pk])
            # Traces first, then the rows: the order span ingest takes them in.
            if not traces_lock(project.pk, external_ids):
                continue
            rows = list(
                PendingSpanLog.objects.select_for_update()
                .filter(project=project, trace_external_id__in=external_ids)
                .order_by("pk")
            )
            events_by_span: dict[tuple[str, str], list[dict]] = {}
            pks_by_span: dict[tuple[str, str], list[int]] = defaultdict(list)
            for row in rows:
                key = (row.trace_external_id, row.span_id)
                events_by_span.setdefault(key, []).extend(row.events)
                pks_by_span[key].append(row.pk)
            stored = _stored_spans_find(project, events_by_span)
            # Deleted before the spans are stored again, which would otherwise take them twice.
            pending_logs_taken_delete([pk for key in stored for pk in pks_by_span[key]])
            _spans_rebuild(project, stored, events_by_span)
            joined += sum(len(events_by_span[key]) for key in stored)
    return joined


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
