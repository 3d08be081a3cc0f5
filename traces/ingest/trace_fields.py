"""Trace-level fields (task, final answer, agent, model, context) from a batch of span records.

Works on any object with the Trace model's attribute names: the ingest path passes plain rows.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime

from traces.ingest.records import SpanRecord, TraceExtras
from traces.messages import readable_text
from traces.models import SpanKind
from traces.sessions import metadata_session_id

_EPOCH = datetime.min.replace(tzinfo=UTC)


def trace_fields_apply(trace, records: list[SpanRecord], extra: TraceExtras | None):
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


def _readable_fields_derive(trace, records, root, extra) -> None:
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
