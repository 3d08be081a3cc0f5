"""Trace-level fields (task, final answer, agent, model, context) from a batch of span records.

Works on any object with the Trace model's attribute names: the ingest path passes plain rows.
"""

from __future__ import annotations

from datetime import UTC, datetime
from operator import itemgetter
from typing import NamedTuple

from traces.context_attributes import context_from_attributes
from traces.ingest.records import SpanRecord, TraceExtras
from traces.ingest.task_choice import task_text
from traces.messages import object_repr, python_literal_maybe, readable_text
from traces.models import SpanKind, SpanStatus
from traces.sessions import metadata_session_id
from traces.stop_reasons import finish_reason_of, reply_finish_reason
from traces.tags import tags_read, tags_union
from traces.tool_definitions import AVAILABLE_TOOLS, tools_added

_EPOCH = datetime.min.replace(tzinfo=UTC)


class _Batch(NamedTuple):
    """What every step reads: one trace's records in this call, its root among them (if it
    came), the records root first, and what the payload said of the whole trace."""

    records: list[SpanRecord]
    root: SpanRecord | None
    ranked: list[SpanRecord]
    extra: TraceExtras | None


def trace_fields_apply(trace, records: list[SpanRecord], extra: TraceExtras | None):
    """Task, answer, agent and model: the payload's word first, then the root, then any span."""
    # Roots first, each part in arrival order; parent_span_id read directly (no call a span).
    roots = [r for r in records if not r.parent_span_id]
    ranked = roots + [r for r in records if r.parent_span_id] if roots else records
    batch = _Batch(records, roots[0] if roots else None, ranked, extra)
    for step in _STEPS:
        step(trace, batch)


def _root_span_id_set(trace, batch: _Batch) -> None:
    if batch.root is not None:
        trace.root_span_id = batch.root.span_id


def _named_fields_set(trace, batch: _Batch) -> None:
    """Each named field from the payload, else the root, else any span if the trace has none."""
    for field in NAMED_FIELDS:
        explicit = getattr(batch.extra, field, None) if batch.extra else None
        from_root = batch.root.trace_fields.get(field) if batch.root else None
        role = READABLE_FIELDS.get(field)
        if role:
            explicit = readable_text(explicit, role=role) if explicit else None
            from_root = readable_text(from_root, role=role) if from_root else None
        value = explicit or from_root
        # Any span's value is read only when it would be used: most batches have the root's.
        if not value and not getattr(trace, field):
            value = _first_trace_field(batch.ranked, field)
            if role and value:
                value = readable_text(value, role=role)
        if value:
            if role:
                _source_note(trace, field, SOURCE_EXPLICIT)
            setattr(trace, field, value)


def _agent_version_set(trace, batch: _Batch) -> None:
    """The payload's version always wins; a span's only fills a trace that has none."""
    explicit = batch.extra.agent_version if batch.extra else None
    version = explicit or _first_trace_field(batch.ranked, "agent_version")
    if version and (explicit or not trace.agent_version):
        trace.agent_version = version


def _first_trace_field(records: list[SpanRecord], field: str):
    """The first of the records' values of a trace field, None when none has it. A loop, not
    a generator: this runs for every trace stored."""
    for record in records:
        if field in record.trace_fields:
            return record.trace_fields[field]
    return None


def _model_set(trace, batch: _Batch) -> None:
    """The model most of the batch's spans name, if the trace has none yet."""
    if not trace.model:
        # Counted in a plain dict: a Counter's construction cost more than the counting. The
        # first of the most named wins a tie, as Counter.most_common has it.
        models: dict[str, int] = {}
        for record in batch.records:
            if record.model:
                models[record.model] = models.get(record.model, 0) + 1
        if models:
            trace.model = max(models.items(), key=itemgetter(1))[0]


def _conversation_note(trace, batch: _Batch) -> None:
    """The conversation id a span names, else one its metadata carries, kept in the context."""
    conversation = _first_trace_field(batch.records, "conversation_id")
    if not conversation:
        for record in batch.ranked:
            conversation = metadata_session_id(record.attributes)
            if conversation:
                break
    if conversation:
        trace.context = {**trace.context, "conversation_id": conversation}


def _attribute_context_merge(trace, batch: _Batch) -> None:
    """Context sent as attributes (traces/context_attributes.py) on the root span or the
    resource, the root's winning; the payload's own `context` is merged over it after this.
    Only those two are read: a scan of every span's keys would cost each span on ingest."""
    resource = (batch.extra.attributes or {}).get("resource") if batch.extra else None
    root = batch.root.attributes if batch.root else None
    found = context_from_attributes(root, resource)
    if found:
        trace.context = {**trace.context, **found}


def _offered_tools_add(trace, batch: _Batch) -> None:
    """The tools the batch's model calls were offered, added by name to the context's
    available_tools: the judge reads them beside the task, the trace page lists them."""
    offered = [tool for r in batch.records for tool in r.trace_fields.get(AVAILABLE_TOOLS, ())]
    if not offered:
        return
    tools = tools_added(trace.context.get(AVAILABLE_TOOLS), offered)
    if tools is not None:
        trace.context = {**trace.context, AVAILABLE_TOOLS: tools}


def _extras_merge(trace, batch: _Batch) -> None:
    """The payload's context and attributes over the trace's; its content hash, if it gave one."""
    extra = batch.extra
    if extra is None:
        return
    if extra.context:
        trace.context = {**trace.context, **extra.context}
    if extra.attributes:
        trace.attributes = {**trace.attributes, **extra.attributes}
    if extra.content_hash:
        trace.content_hash = extra.content_hash


def _tags_gather(trace, batch: _Batch) -> None:
    """Every tag a span of the batch or its payload gives (traces.tags)."""
    found = [tags_read(batch.extra.tags)] if batch.extra and batch.extra.tags else []
    for record in batch.records:
        value = record.trace_fields.get("tags")
        if value:
            found.append(tags_read(value))
    if found:
        trace.tags = tags_union(*found)


def _lengths_cap(trace, batch: _Batch) -> None:
    """Blank for missing, and each value cut to its column's length."""
    trace.task = trace.task or ""
    trace.stop_reason = (trace.stop_reason or "")[:100]
    trace.task_type = (trace.task_type or "")[:100]
    trace.agent_name = (trace.agent_name or "")[:200]
    trace.agent_version = (trace.agent_version or "")[:100]


NAMED_FIELDS = ("task", "final_answer", "stop_reason", "task_type", "agent_name")
# The fields read as text a person wrote, in the role of whoever wrote them.
READABLE_FIELDS = {"task": "user", "final_answer": "assistant"}
# Where a task or final answer came from, best first; a better source replaces a worse one.
SOURCE_EXPLICIT, SOURCE_ROOT, SOURCE_MODEL_CALLS = 3, 2, 1
SOURCES_KEY = "evalsite.derived_from"


def _source_note(trace, field: str, rank: int, at: str = "") -> None:
    notes = dict(trace.attributes.get(SOURCES_KEY) or {})
    notes[field] = {"rank": rank, "at": at}
    trace.attributes = {**trace.attributes, SOURCES_KEY: notes}


def _source_of(trace, field: str) -> tuple[int, str]:
    if not getattr(trace, field):
        return 0, ""
    note = (trace.attributes.get(SOURCES_KEY) or {}).get(field)
    # A value stored before sources were noted came from an explicit field or the root.
    return (note["rank"], note.get("at", "")) if note else (SOURCE_EXPLICIT, "")


def _readable_fields_derive(trace, batch: _Batch) -> None:
    """Task and final answer when no explicit field gave them, in the documented order: the
    root's input and output in any message form, else the first user turn and the last
    assistant text of the model calls. Works whether or not the root is in this batch."""
    root = batch.root
    for field, role in READABLE_FIELDS.items():
        rank, at = _source_of(trace, field)
        if rank >= SOURCE_EXPLICIT:
            continue
        value = root.input if (root and field == "task") else (root.output if root else None)
        text = _field_text(value, field, role) if value is not None else ""
        if text:
            setattr(trace, field, text)
            _source_note(trace, field, SOURCE_ROOT)
            continue
        if rank >= SOURCE_ROOT:
            continue
        found = _model_call_text(batch.records, field, role)
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
    the latest one that answered in text, with that call's start time. An agent step given
    the task before its model calls is earlier: its input is the task as the agent was handed
    it, where the model calls get it inside the framework's prompt template (CrewAI's
    `Current Task: ...` under OpenLIT's `invoke_agent`)."""
    kinds = _TASK_KINDS if field == "task" else _ANSWER_KINDS
    calls = sorted(
        (r for r in records if r.kind in kinds and (r.kind == _LLM or r.input is not None)),
        key=lambda r: (r.started_at is None, r.started_at or _EPOCH),
    )
    if field == "final_answer":
        # Reversed after sorting: calls without times keep the order they were sent in.
        calls.reverse()
    for call in calls:
        value = call.input if field == "task" else call.output
        text = _field_text(value, field, role) if value is not None else ""
        if text:
            return text, call.started_at.isoformat() if call.started_at else ""
    return None


_LLM = SpanKind.LLM
_TASK_KINDS = frozenset((SpanKind.LLM, SpanKind.AGENT))
_ANSWER_KINDS = frozenset((SpanKind.LLM,))


def _field_text(value, field: str, role: str) -> str:
    """The task a value states (traces.ingest.task_choice), or the answer text it gives; a
    Python literal written as text is read as the data it is."""
    if isinstance(value, str) and object_repr(value.strip()):
        return ""  # `StopEvent(result=...)`: the object a run returned, not what it said
    if field == "task":
        return task_text(value)
    value = python_literal_maybe(value)
    if isinstance(value, dict) and "content" not in value and isinstance(value.get("text"), str):
        value = {**value, "content": value["text"]}  # `{'role': 'assistant', 'text': ...}`
    return readable_text(value, role=role)


def _stop_reason_derive(trace, batch: _Batch) -> None:
    """The stop reason when no field named one: why the latest model call stopped (`length`,
    `max_tokens`, `content_filter`...), else why the root's last reply did, else `error` for a
    root that failed. Read as one kind
    by traces.stop_reasons.stop_reason_normalize, whichever provider spelled it."""
    rank, at = _source_of(trace, "stop_reason")
    if rank >= SOURCE_ROOT:
        return
    calls = sorted(
        (r for r in batch.records if r.kind == SpanKind.LLM),
        key=lambda r: (r.started_at is not None, r.started_at or _EPOCH),
        reverse=True,
    )
    for call in calls:
        reason = finish_reason_of(call.attributes, call.output)
        started = call.started_at.isoformat() if call.started_at else ""
        if reason and (not at or started >= at):
            trace.stop_reason = reason
            _source_note(trace, "stop_reason", SOURCE_MODEL_CALLS, started)
        if reason:
            return
    reason = reply_finish_reason(batch.root.output) if batch.root is not None else ""
    if reason and not rank:  # no model call said: the root's last reply may
        trace.stop_reason = reason
        _source_note(trace, "stop_reason", SOURCE_MODEL_CALLS)
        return
    if batch.root is not None and batch.root.status == SpanStatus.ERROR and not rank:
        trace.stop_reason = "error"
        _source_note(trace, "stop_reason", SOURCE_MODEL_CALLS)


# In this order: the derived task and answer yield to the named fields set before them.
_STEPS = (
    _root_span_id_set,
    _named_fields_set,
    _agent_version_set,
    _readable_fields_derive,
    _stop_reason_derive,
    _model_set,
    _conversation_note,
    _attribute_context_merge,
    _extras_merge,
    _offered_tools_add,
    _tags_gather,
    _lengths_cap,
)
