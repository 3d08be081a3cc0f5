"""Sessions: which conversation a trace belongs to, set at ingest from whatever carries the id.

The id may come on any span (`gen_ai.conversation.id`, `session.id`, `langfuse.session.id`,
read into `context["conversation_id"]` by the conventions table), in a payload's `context`
or transcript `metadata`, or on the OTLP resource; a span that arrives later with the id
moves the trace into its session then.
"""

from __future__ import annotations

import json
from datetime import datetime

from django.db.models import Q

from traces.models import Project, Session, Trace
from traces.session_totals import session_totals_initial, trace_totals
from traces.sql import sessions_for_ids

# Keys of a trace's context (span-tree `context`, transcript `context`) naming its session,
# best first; `conversation_id` is where the span attributes' value is kept.
CONTEXT_KEYS = (
    "session_id",
    "conversation_id",
    "session.id",
    "gen_ai.conversation.id",
    "thread_id",
)
# Keys of transcript `metadata` and of the OTLP resource (Langfuse and LangGraph spellings too).
METADATA_KEYS = ("session_id", "langfuse_session_id", "conversation_id", "thread_id")
RESOURCE_KEYS = ("session.id", "gen_ai.conversation.id", "langfuse.session.id")
MAX_ID_CHARS = Session._meta.get_field("external_id").max_length


def _first_text(values: dict, keys: tuple[str, ...]) -> str:
    if not isinstance(values, dict):
        return ""
    for key in keys:
        value = values.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
            return str(value).strip()
    return ""


def metadata_session_id(attributes: dict) -> str:
    """The session id in a span's `metadata` (a transcript's, or OpenInference's JSON text)."""
    metadata = attributes.get("metadata") if isinstance(attributes, dict) else None
    if isinstance(metadata, str) and metadata.startswith("{"):
        try:
            metadata = json.loads(metadata)
        except ValueError:
            return ""
    return _first_text(metadata or {}, METADATA_KEYS)


def trace_session_external_id(trace: Trace) -> str:
    """The conversation id a trace was sent under, or "" when none was."""
    attributes = trace.attributes or {}
    found = (
        _first_text(trace.context or {}, CONTEXT_KEYS)
        or metadata_session_id(attributes)
        or _first_text(attributes.get("resource") or {}, RESOURCE_KEYS)
    )
    return found[:MAX_ID_CHARS]


def traces_sessions_assign(project: Project, traces: list, now: datetime) -> frozenset[int]:
    """Point each trace at its project's session for its conversation id (made on first use).

    One or two queries whatever the number of traces; the caller saves `session` with the
    trace (a Trace, or ingest's plain StoredTrace), whose totals are final by now: a session
    made here starts with them, and its id is in the set returned (session_totals_add).
    """
    wanted = [(trace, trace_session_external_id(trace)) for trace in traces]
    by_session: dict[str, list] = {}
    for trace, external_id in wanted:
        if external_id:
            by_session.setdefault(external_id, []).append(trace_totals(trace))
    if not by_session:
        return frozenset()
    initial = {ext: session_totals_initial(totals, now) for ext, totals in by_session.items()}
    sessions, made = sessions_for_ids(project.pk, initial, now)
    for trace, external_id in wanted:
        # A trace keeps its session when a later batch names none.
        if external_id:
            trace.session_id = sessions[external_id]
    return made


def session_filter_q(value: str) -> Q:
    """Traces of a session named by its conversation id, or by its number as `#12`."""
    text = value.strip()
    number = text.removeprefix("#")
    if text.startswith("#") and number.isdecimal():
        return Q(session_id=int(number))
    return Q(session__external_id=text)
