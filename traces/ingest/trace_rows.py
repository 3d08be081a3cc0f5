"""The trace rows of one ingest call: locked when they exist, inserted whole when they do not.

A trace new to the call is written once, with the values its spans give it, instead of being
inserted blank and updated: every write of a trace row touches each of its indexes, and most
calls bring new traces. The insert fails on a trace another request created meanwhile; the
caller then starts over, and the row is locked like any stored trace (TraceCreatedMeanwhile).
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime

import orjson
from django.db import IntegrityError, connection, transaction
from django.db.models import NOT_PROVIDED, JSONField
from psycopg.errors import UniqueViolation
from psycopg.types.json import Jsonb

from traces.ingest.bulk_sql import binding_cursor
from traces.ingest.copy_rows import json_dumps, quote, rows_copy
from traces.models import Trace

# The Trace columns ingestion computes and writes back.
TRACE_FIELDS = [
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
TRACE_READ = ["external_id", "completed_at", "held_out", "spans_day", *TRACE_FIELDS]


class TraceCreatedMeanwhile(Exception):
    """Another request inserted one of the call's new traces after the call looked for it."""


def traces_lock(project_pk: int, external_ids: list[str]) -> list[dict]:
    """The stored traces among these external ids, locked in external id order, so two requests
    never wait on each other crosswise. Each is its `pk` and TRACE_READ values."""
    read = [field for _, field in _read_fields()]
    if connection.vendor != "postgresql":
        traces = (
            Trace.objects.select_for_update()
            .filter(project_id=project_pk, external_id__in=external_ids)
            .order_by("external_id")
        )
        return list(traces.values("pk", *(field.attname for field in read)))
    with binding_cursor() as cursor:
        cursor.execute(_lock_sql(), [project_pk, external_ids])
        fetched = cursor.fetchall()
    rows = []
    for pk, *values in fetched:
        row = {"pk": pk}
        for field, value in zip(read, values, strict=True):
            # Django reads jsonb as text and decodes it in the field; so do we.
            row[field.attname] = orjson.loads(value) if isinstance(field, JSONField) else value
        rows.append(row)
    return rows


@functools.cache
def _lock_sql() -> str:
    # Table and column names come from the model, never from input.
    return (
        f"SELECT id, {', '.join(quote(f.column) for _, f in _read_fields())} "  # noqa: S608
        f"FROM {quote(Trace._meta.db_table)} "
        "WHERE project_id = %s AND external_id = ANY(%s) ORDER BY external_id FOR UPDATE"
    )


def trace_new_row(external_id: str, now: datetime) -> dict:
    """TRACE_READ values of a trace not stored yet: the model's defaults, received now."""
    constants, made_each_time = _new_row_defaults()
    row = {**constants, "external_id": external_id, "spans_day": now.astimezone(UTC).date()}
    for attname, field in made_each_time:
        row[attname] = field.get_default()
    return row


@functools.cache
def _new_row_defaults() -> tuple[dict, tuple]:
    """A new trace's defaults read once, apart from those made afresh for each row (a dict):
    asking each field for its default cost more than the rest of a new trace's row."""
    constants: dict = {"pk": None}
    made_each_time = []
    for attname, field in _read_fields():
        if attname in ("external_id", "spans_day"):
            continue  # every new row is given its own
        if field.has_default() and callable(field.default):
            made_each_time.append((attname, field))
        else:
            constants[attname] = field.get_default()
    return constants, tuple(made_each_time)


@functools.cache
def _read_fields() -> tuple:
    return tuple((field.attname, field) for field in map(Trace._meta.get_field, TRACE_READ))


def traces_insert(project_pk: int, traces: list, source_format: str, now: datetime) -> None:
    """Insert new traces (plain objects with the TRACE_READ names) and set each one's `pk`.

    Raises TraceCreatedMeanwhile, having inserted nothing that stays, when one of them was
    created by another request since traces_lock looked. On PostgreSQL the transaction is then
    unusable until the caller's atomic block (ingest.store's, a savepoint) rolls it back."""
    if not traces:
        return
    traces = sorted(traces, key=lambda trace: trace.external_id)
    given = {"project_id": project_pk, "source_format": source_format, "created_at": now}
    fields = _insert_fields()
    if connection.vendor != "postgresql":
        _traces_insert_orm(traces, fields, given)
        return
    # Keys first, so the rows go by COPY, which returns none: several times cheaper to send
    # than an INSERT's column arrays, and no speculative insertion for ON CONFLICT.
    with connection.cursor() as cursor:
        cursor.execute(_keys_sql(), [len(traces)])
        keys = [key for (key,) in cursor.fetchall()]
    attnames = [field.attname for field in fields]
    rows = (
        [key, *(given[name] if name in given else getattr(trace, name) for name in attnames)]
        for key, trace in zip(keys, traces, strict=True)
    )
    try:
        rows_copy(Trace, ("id", *(field.name for field in fields)), rows)
    except UniqueViolation as exc:
        if exc.diag.constraint_name != _UNIQUE_EXTERNAL_ID:
            raise
        raise TraceCreatedMeanwhile from exc
    for key, trace in zip(keys, traces, strict=True):
        trace.pk = key


# The model's unique key a trace created meanwhile collides with.
_UNIQUE_EXTERNAL_ID = next(
    constraint.name
    for constraint in Trace._meta.constraints
    if tuple(getattr(constraint, "fields", ())) == ("project", "external_id")
)


@functools.cache
def _insert_fields() -> list:
    """The Trace fields a new row is written with, besides its key."""
    return [
        field
        for field in Trace._meta.concrete_fields
        if not field.primary_key and field.db_default is NOT_PROVIDED
    ]


@functools.cache
def _keys_sql() -> str:
    table = Trace._meta.db_table
    # The sequence is looked up once (OFFSET 0 keeps the subquery whole): named in the select
    # list, it was looked up again for every key, ten times the cost of nextval itself.
    return (
        "SELECT nextval(s.seq) FROM (SELECT "  # noqa: S608 - the model's table name
        f"pg_get_serial_sequence('{table}', 'id')::regclass AS seq OFFSET 0) AS s, "
        "generate_series(1, %s)"
    )


def _traces_insert_orm(traces: list, fields: list, given: dict) -> None:
    """SQLite's path: the ORM inserts the rows and returns their keys."""
    models = [
        Trace(
            **{
                field.attname: given.get(field.attname, getattr(trace, field.attname, None))
                for field in fields
            }
        )
        for trace in traces
    ]
    try:
        with transaction.atomic():
            Trace.objects.bulk_create(models)
    except IntegrityError as exc:
        raise TraceCreatedMeanwhile from exc
    for trace, model in zip(traces, models, strict=True):
        trace.pk = model.pk


def trace_rows_update(traces: list, fields: list[str]) -> None:
    """UPDATE each trace's fields (read off plain objects by attribute) by primary key."""
    if not traces:
        return
    columns = [Trace._meta.get_field(name) for name in fields]
    assignments = ", ".join(f"{quote(c.column)} = %s" for c in columns)
    # Table and column names come from the model, never from input.
    sql = f"UPDATE {quote(Trace._meta.db_table)} SET {assignments} WHERE id = %s"  # noqa: S608
    if connection.vendor == "postgresql":
        # psycopg adapts these values itself; only JSON needs wrapping (and orjson is faster).
        json_columns = {i for i, c in enumerate(columns) if isinstance(c, JSONField)}
        params = [
            [
                Jsonb(getattr(trace, c.attname), dumps=json_dumps)
                if i in json_columns
                else getattr(trace, c.attname)
                for i, c in enumerate(columns)
            ]
            + [trace.pk]
            for trace in traces
        ]
    else:
        params = [
            [c.get_db_prep_save(getattr(trace, c.attname), connection) for c in columns]
            + [trace.pk]
            for trace in traces
        ]
    with binding_cursor() as cursor:
        cursor.executemany(sql, params)
