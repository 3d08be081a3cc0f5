"""Storing spans: batched, idempotent, all-or-nothing; a constant number of queries per call.

Runs in one transaction (the caller's, if any). The stored trace rows are locked first, so
requests that touch one trace take turns, and each sees every span stored before it: spans
already stored are skipped by id, positions and totals are computed from what the request
carries plus the spans stored earlier, without reading back what it wrote. New traces are
inserted once, whole (traces.ingest.trace_rows).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from operator import attrgetter

from django.db import transaction
from django.utils import timezone

from traces.components import records_components_assign
from traces.ingest.bulk_sql import (
    span_rows,
    spans_fields_update,
    spans_insert,
)
from traces.ingest.calls import MERGED_KEY, calls_merge, failed_calls_count
from traces.ingest.dialects import langgraph_tool_calls_resolve
from traces.ingest.failures import project_failure_rule, tool_failures_mark
from traces.ingest.mlflow_spans import mlflow_call_ids_resolve
from traces.ingest.records import SpanRecord, TraceExtras
from traces.ingest.span_logs import pending_logs_apply, pending_logs_taken_delete
from traces.ingest.trace_fields import trace_fields_apply
from traces.ingest.trace_rows import (
    TraceCreatedMeanwhile,
    trace_new_row,
    trace_rows_write,
    traces_lock_with_spans,
)
from traces.ingest.usage import REPEATED_KEY, usage_totals
from traces.masking.records import extras_mask, records_mask
from traces.masking.rules import masker_for
from traces.models import Project, Trace
from traces.session_totals import session_totals_add, trace_totals
from traces.sessions import traces_sessions_assign
from traces.signals import spans_ingested
from traces.tags import trace_tags_add

_EPOCH = datetime.min.replace(tzinfo=UTC)
# The trace column holds up to a million dollars; a larger sum is a sender's error.
MAX_TRACE_COST = Decimal("999999.999999")
# A call whose new trace another request creates meanwhile starts over; a third race in a
# row would need three requests creating the same traces one after another.
STORE_ATTEMPTS = 3


@dataclass
class StoredTrace:
    """A trace as a call of spans_store left it: the Trace columns ingest writes, plain values."""

    pk: int | None  # None until a new trace is inserted
    external_id: str
    completed_at: datetime | None
    held_out: bool
    task: str
    final_answer: str
    stop_reason: str
    task_type: str
    agent_name: str
    agent_version: str
    model: str
    context: dict
    attributes: dict
    session_id: int | None
    root_span_id: str
    started_at: datetime | None
    ended_at: datetime | None
    span_count: int
    error_count: int
    told_error_count: int  # of error_count, the failures the checks read in messages alone
    input_tokens: int
    output_tokens: int
    cost_usd: Decimal
    content_hash: str
    last_span_received_at: datetime | None
    spans_day: date
    new_span_count: int = 0  # spans this call stored
    tags: list = field(default_factory=list)  # tags this call's spans or payload gave


def _dedupe(records: list[SpanRecord]) -> list[SpanRecord]:
    seen: set[tuple[str, str]] = set()
    out = []
    for record in records:
        key = (record.trace_external_id, record.span_id)
        if key not in seen:
            seen.add(key)
            out.append(record)
    return out


def _start_key(record: SpanRecord) -> tuple:
    return (record.started_at is None, record.started_at or _EPOCH)


_STARTED_AT = attrgetter("started_at")


def _by_start(records: list[SpanRecord]) -> list[SpanRecord]:
    """Records by start time, untimed last (in arrival order)."""
    try:
        return sorted(records, key=_STARTED_AT)  # no Python call a span when all are timed
    except TypeError:  # an untimed span was compared
        return sorted(records, key=_start_key)


def spans_store(
    project: Project,
    records: list[SpanRecord],
    source_format: str,
    extras: dict[str, TraceExtras] | None = None,
    *,
    savepoint: bool = True,
) -> dict[str, StoredTrace]:
    """Store traces and spans in a constant number of queries; re-sent spans are no-ops.

    Returns the touched traces by external id, each with `new_span_count` (spans this call
    stored). Sends spans_ingested inside the transaction. Within a caller's transaction the
    call is a savepoint, to start over when a new trace was created meanwhile; a caller that
    starts its own transaction over instead passes savepoint=False and gets
    TraceCreatedMeanwhile (ingest_otlp: two statements fewer a request).
    """
    extras = extras or {}
    masker = masker_for(project.pk)
    if masker is not None:
        records_mask(masker, records)
        extras_mask(masker, extras)
    records, logs_taken = pending_logs_apply(project, _dedupe(records))
    langgraph_tool_calls_resolve(records)
    mlflow_call_ids_resolve(records)
    tool_failures_mark(records, project_failure_rule(project))
    records_components_assign(records)
    by_trace: dict[str, list[SpanRecord]] = defaultdict(list)
    for record in records:
        by_trace[record.trace_external_id].append(record)
    external_ids = sorted(set(by_trace) | set(extras))
    if not external_ids:
        return {}
    args = (project, by_trace, external_ids, source_format, extras, logs_taken)
    if not savepoint:
        return _store_once(*args, savepoint)
    for _ in range(STORE_ATTEMPTS - 1):
        try:
            return _store_once(*args)
        except TraceCreatedMeanwhile:
            continue  # those traces are stored now: the next attempt locks and extends them
    return _store_once(*args)


def _store_once(
    project, by_trace, external_ids, source_format, extras, logs_taken, savepoint=True
) -> dict[str, StoredTrace]:
    now = timezone.now()
    with transaction.atomic(savepoint=savepoint):
        # Nearly every trace a request extends began today (UTC): only its spans are planned.
        stored_rows, earlier = traces_lock_with_spans(
            project.pk, external_ids, [now.astimezone(UTC).date()]
        )
        traces = {row["external_id"]: StoredTrace(**row) for row in stored_rows}
        before = {ext: trace_totals(trace) for ext, trace in traces.items()}
        traces = {
            ext: traces.get(ext) or StoredTrace(**trace_new_row(ext, now)) for ext in external_ids
        }
        placed, moved, stored_changes, logs_done = [], [], [], []
        for ext, trace_records in by_trace.items():
            trace = traces[ext]
            stored = earlier.get(trace.pk, []) if trace.pk else []
            known = {span.span_id for span in stored}
            new = _by_start([r for r in trace_records if r.span_id not in known])
            changes = calls_merge(trace, new, stored) if new else None
            if changes:
                stored_changes.append((trace.pk, trace.spans_day, changes))
            placed.append((trace, new, _positions(stored, new, moved, trace.spans_day)))
            trace.new_span_count = len(new)
            if new:
                _totals_apply(trace, [*stored, *new])
            if logs_taken:
                # Under the traces' lock: only the records of spans stored now took theirs.
                logs_done += [pk for r in new for pk in logs_taken.get((ext, r.span_id), ())]
        for ext, trace in traces.items():
            trace_fields_apply(trace, by_trace.get(ext, []), extras.get(ext))
            # A re-sent span is not news: it must not hold back a trace's completion.
            if trace.new_span_count or trace.last_span_received_at is None:
                trace.last_span_received_at = now
        made = traces_sessions_assign(project, list(traces.values()), now)
        fresh = [trace for ext, trace in traces.items() if ext not in before]
        trace_rows_write(
            project.pk, fresh, [traces[ext] for ext in before], source_format, now, moved
        )
        trace_tags_add([(trace.pk, tag) for trace in traces.values() for tag in trace.tags])
        spans_insert(
            [
                row
                for trace, new, positions in placed
                for row in span_rows(new, trace.pk, positions, trace.spans_day)
            ]
        )
        spans_fields_update(stored_changes)
        pending_logs_taken_delete(logs_done)
        session_totals_add(
            before, {ext: trace_totals(trace) for ext, trace in traces.items()}, now, made
        )
        grown = [trace for trace in traces.values() if trace.new_span_count]
        spans_ingested.send(
            sender=Trace,
            trace_ids=[trace.pk for trace in traces.values()],
            late_trace_ids=[traces[ext].pk for ext in before if traces[ext].new_span_count],
            session_ids=sorted({t.session_id for t in grown if t.session_id is not None} - made),
            held_out_trace_ids=[trace.pk for trace in traces.values() if trace.held_out],
        )
    return traces


def _positions(stored: list, new: list[SpanRecord], moved: list, day: date) -> list[int]:
    """Positions of the new spans in their trace, ordered by start time (untimed last, then in
    arrival order); stored spans whose position changes are added to `moved` as
    (pk, position, the trace's spans day)."""
    if not stored:
        return list(range(len(new)))
    keyed = [
        (span.started_at is None, span.started_at or _EPOCH, 0, span.pk, span) for span in stored
    ]
    keyed += [(*_start_key(record), 1, index, None) for index, record in enumerate(new)]
    keyed.sort(key=lambda item: item[:4])
    new_positions = [0] * len(new)
    for position, (_, _, is_new, index, span) in enumerate(keyed):
        if is_new:
            new_positions[index] = position
        elif span.position != position:
            moved.append((span.pk, position, day))
    return new_positions


def _totals_apply(trace: StoredTrace, spans: list) -> None:
    """Span count, errors, time range, tokens and cost of a trace from all its spans; its
    errors keep the failures its checks read in messages alone (told_error_count)."""
    trace.span_count = len(spans)
    merged = trace.attributes.get(MERGED_KEY)
    trace.error_count = failed_calls_count(spans, merged) + trace.told_error_count
    starts = [span.started_at for span in spans if span.started_at is not None]
    ends = [span.ended_at for span in spans if span.ended_at is not None]
    trace.started_at = min(starts) if starts else None
    trace.ended_at = max(ends) if ends else None
    usage = usage_totals(spans)
    trace.input_tokens = usage.input_tokens
    trace.output_tokens = usage.output_tokens
    trace.cost_usd = min(usage.cost_usd, MAX_TRACE_COST)
    if usage.repeated or REPEATED_KEY in trace.attributes:
        trace.attributes = {**trace.attributes, REPEATED_KEY: usage.repeated}
