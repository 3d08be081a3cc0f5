"""Sessions: which conversation a trace belongs to, set at ingest from whatever carries the id.

The id may come on any span (`gen_ai.conversation.id`, `session.id`, `langfuse.session.id`,
read into `context["conversation_id"]` by the conventions table), in a payload's `context`
or transcript `metadata`, or on the OTLP resource; a span that arrives later with the id
moves the trace into its session then.
"""

from __future__ import annotations

import json
from datetime import datetime

from django.db import connection
from django.db.models import NOT_PROVIDED, Q

from traces.ingest.bulk import binding_cursor, column_type
from traces.ingest.copy_rows import quote
from traces.models import Project, Session, Trace
from traces.session_totals import session_totals_initial, trace_totals

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


def sessions_for_ids(
    project_pk: int, initial: dict[str, dict], now: datetime
) -> tuple[dict[str, int], frozenset[int]]:
    """The project's sessions of these conversation ids by id, created where missing with the
    given field values; and the ids of those created."""
    external_ids = sorted(initial)
    if connection.vendor != "postgresql":
        Session.objects.bulk_create(
            [Session(project_id=project_pk, external_id=ext) for ext in external_ids],
            ignore_conflicts=True,
        )
        return _sessions_read(project_pk, external_ids), frozenset()
    given = {"project_id": project_pk, "created_at": now}
    columns, values, params, arrays = [], [], [], []
    for field in Session._meta.concrete_fields:
        if field.primary_key or field.db_default is not NOT_PROVIDED:
            continue
        columns.append(quote(field.column))
        if field.attname in given:
            values.append("%s")
            params.append(field.get_db_prep_save(given[field.attname], connection))
            continue
        values.append(f"v.c{len(arrays)}")
        if field.attname == "external_id":
            order = values[-1]
        arrays.append(
            (
                column_type(field),
                [
                    ext
                    if field.attname == "external_id"
                    else initial[ext][field.attname]
                    if field.attname in initial[ext]
                    else field.get_default()
                    for ext in external_ids
                ],
            )
        )
    # Binary arrays (%b): psycopg dumps them several times faster than text ones.
    unnest = ", ".join(f"%b::{db_type}[]" for db_type, _ in arrays)
    names = ", ".join(f"c{i}" for i in range(len(arrays)))
    table = quote(Session._meta.db_table)
    # One statement inserts the missing sessions (in conversation id order, as every writer
    # does) and reads the others; a session another request committed since the statement
    # began is in neither part, and is read after. Names come from the model, not input.
    sql = (
        f"WITH made AS (INSERT INTO {table} ({', '.join(columns)}) "  # noqa: S608
        f"SELECT {', '.join(values)} FROM unnest({unnest}) AS v({names}) "
        f"ORDER BY {order} ON CONFLICT (project_id, external_id) DO NOTHING "
        "RETURNING external_id, id) "
        f"SELECT external_id, id, true FROM made UNION ALL SELECT external_id, id, false "
        f"FROM {table} WHERE project_id = %s AND external_id = ANY(%s)"
    )
    with binding_cursor() as cursor:
        cursor.execute(sql, [*params, *(a for _, a in arrays), project_pk, external_ids])
        fetched = cursor.fetchall()
    found = {ext: pk for ext, pk, _ in fetched}
    made = frozenset(pk for _, pk, was_made in fetched if was_made)
    missing = [ext for ext in external_ids if ext not in found]
    if missing:
        found.update(_sessions_read(project_pk, missing))
    return found, made


def _sessions_read(project_pk: int, external_ids: list[str]) -> dict[str, int]:
    return dict(
        Session.objects.filter(project_id=project_pk, external_id__in=external_ids).values_list(
            "external_id", "pk"
        )
    )


def session_filter_q(value: str) -> Q:
    """Traces of a session named by its conversation id, or by its number as `#12`."""
    text = value.strip()
    number = text.removeprefix("#")
    if text.startswith("#") and number.isdecimal():
        return Q(session_id=int(number))
    return Q(session__external_id=text)
