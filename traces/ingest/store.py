"""Storing spans: batched, idempotent, all-or-nothing; a constant number of queries per call."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import UTC, datetime
from decimal import Decimal

from django.db import transaction
from django.db.models import Count, Max, Min, Q, Sum
from django.utils import timezone

from traces.components import records_components_assign
from traces.ingest.bulk import rows_update, spans_insert_new
from traces.ingest.dialects import langgraph_tool_calls_resolve
from traces.ingest.failures import tool_failures_mark
from traces.ingest.records import SpanRecord, TraceExtras
from traces.messages import readable_text
from traces.models import Project, Span, SpanKind, SpanStatus, Trace
from traces.sessions import metadata_session_id, traces_sessions_assign
from traces.signals import spans_ingested

_EPOCH = datetime.min.replace(tzinfo=UTC)
MODEL_CALL = Q(kind=SpanKind.LLM)
TRACE_UPDATE_FIELDS = [
    "task",
    "final_answer",
    "stop_reason",
    "task_type",
    "agent_name",
    "agent_version",
    "model",
    "context",
    "attributes",
    "session",
    "root_span_id",
    "started_at",
    "ended_at",
    "span_count",
    "error_count",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "content_hash",
    "last_span_received_at",
]


def _dedupe(records: list[SpanRecord]) -> list[SpanRecord]:
    seen: set[tuple[str, str]] = set()
    out = []
    for record in records:
        key = (record.trace_external_id, record.span_id)
        if key not in seen:
            seen.add(key)
            out.append(record)
    return out


def _span_row(record: SpanRecord, trace_pk: int, position: int) -> list:
    """Values in bulk.SPAN_FIELDS order."""
    return [
        trace_pk,
        record.span_id,
        record.parent_span_id,
        record.name,
        record.kind,
        record.started_at,
        record.ended_at,
        record.duration_ms,
        record.input,
        record.output,
        record.attributes,
        record.status,
        record.error_message,
        record.tool_name,
        record.tool_call_id,
        record.model,
        record.input_tokens,
        record.output_tokens,
        record.cost_usd,
        position,
        record.component,
    ]


def _start_key(record: SpanRecord) -> tuple:
    return (record.started_at is None, record.started_at or _EPOCH)


def spans_store(
    project: Project,
    records: list[SpanRecord],
    source_format: str,
    extras: dict[str, TraceExtras] | None = None,
) -> dict[str, Trace]:
    """Upsert traces and insert spans in a constant number of queries; re-sent spans are no-ops.

    Returns the touched traces by external id, each with `new_span_count` (spans this call
    stored). Sends spans_ingested inside the transaction.
    """
    extras = extras or {}
    records = _dedupe(records)
    langgraph_tool_calls_resolve(records)
    tool_failures_mark(
        records,
        detect_text=project.tool_error_text_detection,
        extra_markers=tuple(str(m) for m in project.tool_error_markers or ()),
    )
    records_components_assign(records)
    by_trace: dict[str, list[SpanRecord]] = defaultdict(list)
    for record in records:
        by_trace[record.trace_external_id].append(record)
    external_ids = sorted(set(by_trace) | set(extras))
    if not external_ids:
        return {}
    now = timezone.now()
    with transaction.atomic():
        Trace.objects.bulk_create(
            [
                Trace(project=project, external_id=ext, source_format=source_format)
                for ext in external_ids
            ],
            ignore_conflicts=True,
        )
        # Row locks serialize concurrent requests for one trace, so totals below are right.
        traces = {
            trace.external_id: trace
            for trace in Trace.objects.select_for_update()
            .filter(project=project, external_id__in=external_ids)
            .order_by("pk")
        }
        had_spans = {ext for ext, trace in traces.items() if trace.span_count}
        count_before = {ext: trace.span_count for ext, trace in traces.items()}
        rows = []
        for ext, trace_records in by_trace.items():
            trace = traces[ext]
            ordered = sorted(trace_records, key=_start_key)
            rows.extend(
                _span_row(record, trace.pk, trace.span_count + index)
                for index, record in enumerate(ordered)
            )
        spans_insert_new(rows)
        _traces_refresh(project, traces, by_trace, extras, now, count_before)
        if had_spans & set(by_trace):
            _positions_renumber([traces[ext].pk for ext in had_spans & set(by_trace)])
        pks = [trace.pk for trace in traces.values()]
        spans_ingested.send(sender=Trace, trace_ids=pks)
    return traces


def _traces_refresh(project, traces, by_trace, extras, now, count_before) -> None:
    """Recompute totals from stored spans (one grouped query) and trace fields from the batch."""
    totals = {
        row["trace_id"]: row
        for row in Span.objects.filter(trace_id__in=[t.pk for t in traces.values()])
        .values("trace_id")
        .annotate(
            n=Count("pk"),
            errors=Count("pk", filter=Q(status=SpanStatus.ERROR)),
            first=Min("started_at"),
            last=Max("ended_at"),
            tokens_in=Sum("input_tokens"),
            tokens_out=Sum("output_tokens"),
            cost=Sum("cost_usd"),
            llm_in=Sum("input_tokens", filter=MODEL_CALL),
            llm_out=Sum("output_tokens", filter=MODEL_CALL),
            llm_cost=Sum("cost_usd", filter=MODEL_CALL),
        )
    }
    for ext, trace in traces.items():
        row = totals.get(trace.pk)
        if row:
            trace.span_count = row["n"]
            trace.error_count = row["errors"]
            trace.started_at = row["first"]
            trace.ended_at = row["last"]
            # Agent spans often repeat their model calls' sums (strands, OpenInference):
            # the model calls' figures count when there are any, else every span's.
            by_calls = bool(row["llm_in"] or row["llm_out"] or row["llm_cost"])
            keys = (
                ("llm_in", "llm_out", "llm_cost")
                if by_calls
                else ("tokens_in", "tokens_out", "cost")
            )
            trace.input_tokens = row[keys[0]] or 0
            trace.output_tokens = row[keys[1]] or 0
            cost = row[keys[2]] or Decimal(0)
            # The trace column holds up to a million dollars; a larger sum is a sender's error.
            trace.cost_usd = min(cost, Decimal("999999.999999"))
        _trace_fields_apply(trace, by_trace.get(ext, []), extras.get(ext))
        trace.new_span_count = trace.span_count - count_before[ext]
        # A re-sent span is not news: it must not hold back a trace's completion.
        if trace.new_span_count or trace.last_span_received_at is None:
            trace.last_span_received_at = now
    traces_sessions_assign(project, list(traces.values()))
    rows_update(Trace, list(traces.values()), TRACE_UPDATE_FIELDS)


def _trace_fields_apply(trace: Trace, records: list[SpanRecord], extra: TraceExtras | None):
    """Task, answer, agent and model: the payload's word first, then the root, then any span."""
    root = next((r for r in records if r.is_root), None)
    if root is not None:
        trace.root_span_id = root.span_id
    ranked = sorted(records, key=lambda r: not r.is_root)
    for field in ("task", "final_answer", "stop_reason", "task_type", "agent_name"):
        explicit = getattr(extra, field, None) if extra else None
        from_root = root.trace_fields.get(field) if root else None
        from_any = next((r.trace_fields[field] for r in ranked if field in r.trace_fields), None)
        if field in READABLE_FIELDS:
            explicit = readable_text(explicit, role=READABLE_FIELDS[field]) if explicit else None
            from_root = readable_text(from_root, role=READABLE_FIELDS[field]) if from_root else None
            from_any = readable_text(from_any, role=READABLE_FIELDS[field]) if from_any else None
            if explicit or from_root or (from_any and not getattr(trace, field)):
                _source_note(trace, field, SOURCE_EXPLICIT)
        if explicit:
            setattr(trace, field, explicit)
        elif from_root:
            setattr(trace, field, from_root)
        elif from_any and not getattr(trace, field):
            setattr(trace, field, from_any)
    explicit_version = extra.agent_version if extra else None
    version = explicit_version or next(
        (r.trace_fields["agent_version"] for r in ranked if "agent_version" in r.trace_fields),
        None,
    )
    if version and (explicit_version or not trace.agent_version):
        trace.agent_version = version
    _readable_fields_derive(trace, records, root, extra)
    if not trace.model:
        models = Counter(r.model for r in records if r.model)
        if models:
            trace.model = models.most_common(1)[0][0]
    conversation = next(
        (r.trace_fields["conversation_id"] for r in records if "conversation_id" in r.trace_fields),
        None,
    ) or next(filter(None, (metadata_session_id(r.attributes) for r in ranked)), None)
    if conversation:
        trace.context = {**trace.context, "conversation_id": conversation}
    if extra is not None:
        if extra.context:
            trace.context = {**trace.context, **extra.context}
        if extra.attributes:
            trace.attributes = {**trace.attributes, **extra.attributes}
        if extra.content_hash:
            trace.content_hash = extra.content_hash
    trace.task = trace.task or ""
    trace.stop_reason = (trace.stop_reason or "")[:100]
    trace.task_type = (trace.task_type or "")[:100]
    trace.agent_name = (trace.agent_name or "")[:200]
    trace.agent_version = (trace.agent_version or "")[:100]


READABLE_FIELDS = {"task": "user", "final_answer": "assistant"}
# Where a task or final answer came from, best first; a better source replaces a worse one.
SOURCE_EXPLICIT, SOURCE_ROOT, SOURCE_MODEL_CALLS = 3, 2, 1
SOURCES_KEY = "evalsite.derived_from"


def _source_note(trace: Trace, field: str, rank: int, at: str = "") -> None:
    notes = dict(trace.attributes.get(SOURCES_KEY) or {})
    notes[field] = {"rank": rank, "at": at}
    trace.attributes = {**trace.attributes, SOURCES_KEY: notes}


def _source_of(trace: Trace, field: str) -> tuple[int, str]:
    if not getattr(trace, field):
        return 0, ""
    note = (trace.attributes.get(SOURCES_KEY) or {}).get(field)
    # A value stored before sources were noted came from an explicit field or the root.
    return (note["rank"], note.get("at", "")) if note else (SOURCE_EXPLICIT, "")


def _readable_fields_derive(trace: Trace, records, root, extra) -> None:
    """Task and final answer when no explicit field gave them, in the documented order: the
    root's input and output in any message form, else the first user turn and the last
    assistant text of the model calls. Works whether or not the root is in this batch."""
    for field, role in READABLE_FIELDS.items():
        rank, at = _source_of(trace, field)
        if rank >= SOURCE_EXPLICIT:
            continue
        value = root.input if (root and field == "task") else (root.output if root else None)
        text = readable_text(value, role=role) if value is not None else ""
        if text:
            setattr(trace, field, text)
            _source_note(trace, field, SOURCE_ROOT)
            continue
        if rank >= SOURCE_ROOT:
            continue
        found = _model_call_text(records, field, role)
        if found is None:
            continue
        text, started = found
        earlier = field == "task" and (not at or started < at)
        later = field == "final_answer" and (not at or started >= at)
        if rank == 0 or earlier or later:
            setattr(trace, field, text)
            _source_note(trace, field, SOURCE_MODEL_CALLS, started)


def _model_call_text(records, field: str, role: str) -> tuple[str, str] | None:
    """The first user text given to the earliest model call, or the last assistant text of
    the latest one that answered in text, with that call's start time."""
    calls = sorted(
        (r for r in records if r.kind == SpanKind.LLM),
        key=lambda r: (r.started_at is None, r.started_at or _EPOCH),
    )
    if field == "final_answer":
        # Reversed after sorting: calls without times keep the order they were sent in.
        calls.reverse()
    for call in calls:
        value = call.input if field == "task" else call.output
        text = readable_text(value, role=role) if value is not None else ""
        if text:
            return text, call.started_at.isoformat() if call.started_at else ""
    return None


def _positions_renumber(trace_pks: list[int]) -> None:
    """Spans that arrived in several requests: order all of each trace by start time again."""
    spans = list(
        Span.objects.filter(trace_id__in=trace_pks)
        .order_by("trace_id", "started_at", "pk")
        .only("pk", "trace_id", "position")
    )
    changed = []
    index_by_trace: dict[int, int] = defaultdict(int)
    for span in spans:
        position = index_by_trace[span.trace_id]
        index_by_trace[span.trace_id] += 1
        if span.position != position:
            span.position = position
            changed.append(span)
    if changed:
        rows_update(Span, changed, ["position"])
