"""The trace rows of one ingest call: locked when they exist, inserted whole when they do not.

A trace new to the call is written once, with the values its spans give it, instead of being
inserted blank and updated: every write of a trace row touches each of its indexes, and most
calls bring new traces. The insert fails on a trace another request created meanwhile; the
caller then starts over, and the row is locked like any stored trace (TraceCreatedMeanwhile).
"""

from __future__ import annotations

import functools
from datetime import UTC, date, datetime

import orjson
from django.db import IntegrityError, connection, transaction
from django.db.models import NOT_PROVIDED, JSONField
from psycopg.errors import UniqueViolation
from psycopg.types.json import Json

from core.prepared_sql import binding_cursor, prepared_cursor
from traces.ingest.bulk_sql import (
    StoredSpan,
    positions_update,
    positions_update_sql,
    rows_json,
    spans_stored,
)
from traces.ingest.copy_rows import quote
from traces.models import TRACE_DESCRIPTION, TRACE_SPAN_TOTALS, Span, Trace

# The Trace columns ingestion computes and writes back.
TRACE_FIELDS = [
    *TRACE_DESCRIPTION,
    "model",
    "context",
    "attributes",
    "session",
    "root_span_id",
    *TRACE_SPAN_TOTALS,
    "content_hash",
    "last_span_received_at",
]
# told_error_count is read, never written: the checks set it (metrics.told_failures).
TRACE_READ = [
    "external_id",
    "completed_at",
    "held_out",
    "spans_day",
    "told_error_count",
    *TRACE_FIELDS,
]


class TraceCreatedMeanwhile(Exception):
    """Another request inserted one of the call's new traces after the call looked for it."""


def traces_lock(project_pk: int, external_ids: list[str]) -> list[dict]:
    """The stored traces among these external ids, locked in external id order, so two requests
    never wait on each other crosswise. Each is its `pk` and TRACE_READ values."""
    if connection.vendor != "postgresql":
        return _traces_lock_orm(project_pk, external_ids)
    with binding_cursor(binary_results=True) as cursor:
        cursor.execute(_lock_sql(), [project_pk, external_ids])
        return [_read_row(row) for row in cursor.fetchall()]


def traces_lock_with_spans(
    project_pk: int, external_ids: list[str], days: list[date]
) -> tuple[list[dict], dict[int, list[StoredSpan]]]:
    """traces_lock's rows, and the spans earlier requests stored for them by trace pk.

    On PostgreSQL one statement locks and reads both when the traces' spans lie on one of
    `days` (the partitions the plan reads; ingest names today). Its spans are
    those of the snapshot the statement began with, which misses spans committed while it
    waited for a lock: a trace row locked in a later version than that snapshot holds had
    spans stored meanwhile, and its spans are read again, as are those of a trace on another
    day."""
    if connection.vendor != "postgresql":
        rows = _traces_lock_orm(project_pk, external_ids)
        return rows, spans_stored({row["pk"]: row["spans_day"] for row in rows})
    with binding_cursor(binary_results=True) as cursor:
        cursor.execute(_lock_with_spans_sql(), [project_pk, external_ids, days])
        fetched = cursor.fetchall()
    width = len(_read_fields()) + 1
    rows, spans, again = [], {}, {}
    for values in fetched:
        row = _read_row(values[:width])
        rows.append(row)
        as_read, *columns = values[width:]
        if as_read and row["spans_day"] in days:
            # No spans: array_agg of no rows is NULL; else one array a column, of equal length.
            spans[row["pk"]] = (
                list(map(StoredSpan._make, zip(*columns, strict=True))) if columns[0] else []
            )
        else:
            again[row["pk"]] = row["spans_day"]
    if again:
        spans.update(spans_stored(again))
    return rows, spans


def _traces_lock_orm(project_pk: int, external_ids: list[str]) -> list[dict]:
    traces = (
        Trace.objects.select_for_update()
        .filter(project_id=project_pk, external_id__in=external_ids)
        .order_by("external_id")
    )
    return list(traces.values("pk", *(field.attname for _, field in _read_fields())))


def _read_row(values) -> dict:
    pk, *values = values
    row = {"pk": pk}
    for (attname, field), value in zip(_read_fields(), values, strict=True):
        # Django reads jsonb as text and decodes it in the field; so do we.
        row[attname] = orjson.loads(value) if isinstance(field, JSONField) else value
    return row


def _lock_columns() -> str:
    # JSON columns come as their text, which orjson reads faster than psycopg's binary jsonb
    # loader would.
    return ", ".join(
        f"{quote(f.column)}::text" if isinstance(f, JSONField) else quote(f.column)
        for _, f in _read_fields()
    )


@functools.cache
def _lock_sql(version: bool = False) -> str:
    # Table and column names come from the model, never from input.
    return (
        f"SELECT id, {'xmin, ' if version else ''}{_lock_columns()} "  # noqa: S608
        f"FROM {quote(Trace._meta.db_table)} "
        "WHERE project_id = %s AND external_id = ANY(%s) ORDER BY external_id FOR UPDATE"
    )


@functools.cache
def _lock_with_spans_sql() -> str:
    # The lock's rows (the version locked, after any wait), whether the statement's snapshot
    # holds that same version (xmin unchanged), and the trace's spans as one array a column.
    # Names come from the model, never from input.
    table = quote(Trace._meta.db_table)
    names = ", ".join(f"l.{quote(f.column)}" for _, f in _read_fields())
    span_field = Span._meta.get_field
    arrays = ", ".join(
        f"array_agg(s.{quote(span_field('id' if name == 'pk' else name).column)})"
        for name in StoredSpan._fields
    )
    return (
        f"WITH l AS MATERIALIZED ({_lock_sql(version=True)}) "  # noqa: S608
        f"SELECT l.id, {names}, "
        f"l.xmin = (SELECT t.xmin FROM {table} AS t WHERE t.id = l.id), s.* "
        f"FROM l LEFT JOIN LATERAL (SELECT {arrays} FROM {quote(Span._meta.db_table)} AS s "
        "WHERE s.trace_id = l.id AND s.trace_day = l.spans_day AND s.trace_day = ANY(%s)"
        ") AS s ON true ORDER BY l.external_id"
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


def trace_rows_write(
    project_pk: int,
    fresh: list,
    stored: list,
    source_format: str,
    now: datetime,
    moved: list[tuple[int, int, date]] = (),
) -> None:
    """Insert the new traces (plain objects with the TRACE_READ names), setting each one's `pk`,
    and write TRACE_FIELDS back to the stored ones; and set the positions of stored spans
    (positions_update's `moved`): one statement on PostgreSQL, when the spans moved lie on one
    day (nearly always).

    Raises TraceCreatedMeanwhile, having written nothing that stays, when a new one was
    created by another request since traces_lock looked. On PostgreSQL the transaction is then
    unusable until the caller's atomic block rolls it back."""
    if not (fresh or stored):
        return
    fresh = sorted(fresh, key=lambda trace: trace.external_id)
    given = {"project_id": project_pk, "source_format": source_format, "created_at": now}
    if connection.vendor != "postgresql":
        if fresh:
            _traces_insert_orm(fresh, _insert_fields(), given)
        _trace_rows_update_orm(stored)
        positions_update(moved)
        return
    # The rows as one JSON document, read into the table's row type by the statement: the keys
    # come back with the insert and the updates ride along, so a request pays one round trip
    # for its traces, and psycopg sends one value instead of an array a column.
    params = []
    days = sorted({day for _, _, day in moved})
    if days:
        # Only stored traces' spans move, so there is an update to ride along with.
        positions_update([m for m in moved if m[2] != days[0]])
        moved_now = [m for m in moved if m[2] == days[0]]
        params += [[pk for pk, _, _ in moved_now], [p for _, p, _ in moved_now], days[0]]
    if stored:
        params.append(_rows_json(stored, (_PK_FIELD, *_update_fields()), {}))
        params.append([trace.pk for trace in stored])
    if fresh:
        params.append(_rows_json(fresh, _insert_fields(), given))
    # Prepared: parsed once a connection. PostgreSQL may keep a generic plan for each variant,
    # the one moving spans too (170-175 of 188 runs in bench/ingest_statements.py's connection).
    with prepared_cursor() as cursor:
        try:
            cursor.execute(_write_sql(bool(stored), bool(fresh), bool(days)), params)
        except IntegrityError as exc:
            cause = exc.__cause__
            if isinstance(cause, UniqueViolation) and (
                cause.diag.constraint_name == _UNIQUE_EXTERNAL_ID
            ):
                raise TraceCreatedMeanwhile from exc
            raise
        keys = dict(cursor.fetchall()) if fresh else {}
    for trace in fresh:
        trace.pk = keys[trace.external_id]


def _rows_json(traces: list, fields: tuple, given: dict) -> Json:
    """The traces' values of these fields (or the given ones) as a JSON array of objects keyed
    by column, as json_populate_recordset reads it."""
    columns = [(f.column, "pk" if f.primary_key else f.attname) for f in fields]
    return rows_json(
        [
            {
                column: given[attname] if attname in given else getattr(trace, attname)
                for column, attname in columns
            }
            for trace in traces
        ]
    )


_PK_FIELD = Trace._meta.pk


@functools.cache
def _update_fields() -> tuple:
    return tuple(Trace._meta.get_field(name) for name in TRACE_FIELDS)


@functools.cache
def _write_sql(update: bool, insert: bool, move: bool = False) -> str:
    # Table and column names come from the model, never from input. Each value is read by its
    # column's type, length and scale included, as COPY's rows were.
    table = quote(Trace._meta.db_table)
    source = f"json_populate_recordset(NULL::{table}, %s::json) AS v"
    parts = [positions_update_sql()] if move else []
    if update:
        assignments = ", ".join(
            f"{quote(f.column)} = v.{quote(f.column)}" for f in _update_fields()
        )
        # The keys again as an array, whose length the planner knows: it takes the JSON for a
        # hundred rows, and would join them by scanning the whole table.
        parts.append(
            f"UPDATE {table} AS t SET {assignments} FROM {source} "  # noqa: S608
            f"WHERE t.id = v.{quote(_PK_FIELD.column)} AND t.id = ANY(%s)"
        )
    if insert:
        names = ", ".join(quote(f.column) for f in _insert_fields())
        values = ", ".join(f"v.{quote(f.column)}" for f in _insert_fields())
        # In external id order, as traces_lock locks, so two inserts never wait crosswise.
        parts.append(
            f"INSERT INTO {table} ({names}) SELECT {values} FROM {source} "  # noqa: S608
            f"ORDER BY v.{quote(Trace._meta.get_field('external_id').column)} "
            "RETURNING external_id, id"
        )
    *ridden, last = parts
    if not ridden:
        return last
    # Each data-modifying WITH runs whether or not the statement reads it.
    return "WITH " + ", ".join(f"w{i} AS ({part})" for i, part in enumerate(ridden)) + f" {last}"


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


def _trace_rows_update_orm(traces: list) -> None:
    """SQLite's path: UPDATE each trace's TRACE_FIELDS by primary key."""
    if not traces:
        return
    columns = _update_fields()
    assignments = ", ".join(f"{quote(c.column)} = %s" for c in columns)
    # Table and column names come from the model, never from input.
    sql = f"UPDATE {quote(Trace._meta.db_table)} SET {assignments} WHERE id = %s"  # noqa: S608
    params = [
        [c.get_db_prep_save(getattr(trace, c.attname), connection) for c in columns] + [trace.pk]
        for trace in traces
    ]
    with binding_cursor() as cursor:
        cursor.executemany(sql, params)
