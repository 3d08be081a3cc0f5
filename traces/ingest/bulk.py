"""Bulk writes of spans for ingestion that the ORM makes slow: COPY on PostgreSQL and
executemany UPDATEs (pipelined by psycopg); traces.ingest.trace_rows writes the trace rows.

Django's bulk_update builds a CASE per field and row, its PostgreSQL bulk_create dumps every
column as an array, and model instances cost more than the values they carry; at thousands of
spans per second all three dominate a request. Other databases (SQLite in embedded mode) take
the ORM's path.
"""

from __future__ import annotations

import functools
import json
from datetime import date, datetime
from operator import attrgetter
from typing import NamedTuple

import orjson
from django.db import connection
from psycopg import postgres
from psycopg.adapt import Dumper
from psycopg.pq import Format

from core.fields import JSONTextField
from traces.ingest.records import SpanRecord
from traces.models import Span
from traces.span_partitions import span_partitions_ensure

# Ingestion writes every Span column, so the model is the one list of them: the store gives a
# new span its trace, position and day (its trace's spans_day), and each other value is the
# SpanRecord attribute of the column's name. COPY, the ORM path and the API's span fields all
# read the list from here.
SPAN_FIELDS_FROM_STORE = ("trace", "position", "trace_day")
SPAN_FIELDS_FROM_RECORD = tuple(
    field.name
    for field in Span._meta.concrete_fields
    if not field.primary_key and field.name not in SPAN_FIELDS_FROM_STORE
)
SPAN_FIELDS = [*SPAN_FIELDS_FROM_STORE, *SPAN_FIELDS_FROM_RECORD]
_record_values = attrgetter(*SPAN_FIELDS_FROM_RECORD)
_DAY_INDEX = SPAN_FIELDS.index("trace_day")


class StoredSpan(NamedTuple):
    """What ordering and totals need of a span an earlier request stored."""

    pk: int
    span_id: str
    started_at: datetime | None
    ended_at: datetime | None
    status: str
    kind: str
    input_tokens: int
    output_tokens: int
    cost_usd: object
    position: int


def json_dumps(value) -> bytes | str:
    """orjson is several times faster than json on span payloads; json takes what it refuses."""
    try:
        return orjson.dumps(value)
    except TypeError:  # non-string keys, integers beyond 64 bits
        return json.dumps(value)


@functools.cache
def quote(name: str) -> str:
    # Remembered: every attribute of django.db.connection is a thread-local lookup, and the
    # ingest statements quote dozens of names a request.
    return connection.ops.quote_name(name)


@functools.cache
def column_type(field) -> str:
    """A model field's column type on this process's database, for casts in plain SQL."""
    return field.db_type(connection)


def binding_cursor():
    """A cursor that sends parameters apart from the statement (PostgreSQL). Django's default
    cursor quotes every value into the SQL text, which costs more than the UPDATE itself for
    the repeated statements here; queries are still logged like any other."""
    if connection.vendor != "postgresql":
        return connection.cursor()
    from django.db.backends.postgresql.base import ServerBindingCursor

    connection.ensure_connection()
    cursor = ServerBindingCursor(connection.connection)
    if connection.queries_logged:
        return connection.make_debug_cursor(cursor)
    return connection.make_cursor(cursor)


def span_row(record: SpanRecord, trace_pk: int, position: int, day: date) -> list:
    """A new span's values in SPAN_FIELDS order, as spans_insert takes them."""
    return [trace_pk, position, day, *_record_values(record)]


def spans_stored(days_by_trace: dict[int, date]) -> dict[int, list[StoredSpan]]:
    """The spans earlier requests stored for these traces (pk -> the trace's spans day), by trace.

    A trace's spans all sit on its day, so naming the days lets PostgreSQL read only their
    partitions instead of probing every day's index."""
    out: dict[int, list[StoredSpan]] = {}
    if not days_by_trace:
        return out
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                _stored_spans_sql(), [list(days_by_trace), list(set(days_by_trace.values()))]
            )
            rows = cursor.fetchall()
    else:
        rows = Span.objects.filter(
            trace_id__in=list(days_by_trace), trace_day__in=set(days_by_trace.values())
        ).values_list("trace_id", *StoredSpan._fields)
    for trace_pk, *values in rows:
        out.setdefault(trace_pk, []).append(StoredSpan(*values))
    return out


@functools.cache
def _stored_spans_sql() -> str:
    # Written once: the ORM building this query was a tenth of a small request's CPU.
    columns = ", ".join(
        quote(Span._meta.get_field("id" if name == "pk" else name).column)
        for name in ("trace", *StoredSpan._fields)
    )
    return (
        f"SELECT {columns} FROM {quote(Span._meta.db_table)} "  # noqa: S608 - model's names
        "WHERE trace_id = ANY(%s) AND trace_day = ANY(%s)"
    )


def spans_insert(rows: list[list]) -> None:
    """Insert new span rows (values in SPAN_FIELDS order); the caller skipped stored span ids."""
    if not rows:
        return
    if connection.vendor != "postgresql":
        attnames = [Span._meta.get_field(name).attname for name in SPAN_FIELDS]
        spans = [Span(**dict(zip(attnames, row, strict=True))) for row in rows]
        Span.objects.bulk_create(spans, ignore_conflicts=True, batch_size=2000)
        return
    # A day without a partition yet (the hourly task makes them ahead) gets one first.
    span_partitions_ensure({row[_DAY_INDEX] for row in rows})
    with connection.cursor() as cursor:
        types = _span_column_types(cursor)
        # The JSON columns' values go as they are, through orjson: no wrapper object a value.
        # Set on this cursor only.
        cursor.cursor.adapters.register_dumper(None, _JsonTextCopyDumper)
        with cursor.cursor.copy(_spans_copy_sql()) as copy:
            copy.set_types(types)
            for row in rows:
                copy.write_row(row)


class _JsonTextCopyDumper(Dumper):
    """A JSONTextField's value in binary COPY. COPY carries no types: PostgreSQL reads each
    field in its column's binary form, which for text is its UTF-8 bytes, as it is for json;
    so these columns are given to psycopg as json, whose dumper this is."""

    format = Format.BINARY
    oid = postgres.types["json"].oid

    def dump(self, obj) -> bytes:
        data = json_dumps(obj)
        return data if isinstance(data, bytes) else data.encode()


@functools.cache
def _spans_copy_sql() -> str:
    names = ", ".join(quote(Span._meta.get_field(name).column) for name in SPAN_FIELDS)
    # By table name: a partitioned spans table takes COPY the same way.
    return f"COPY {quote(Span._meta.db_table)} ({names}) FROM STDIN (FORMAT BINARY)"  # noqa: S608


_COLUMN_TYPES: dict[str, list[str]] = {}


def _span_column_types(cursor) -> list[str]:
    """The spans table's column types in SPAN_FIELDS order, as binary COPY needs them."""
    table = Span._meta.db_table
    if table not in _COLUMN_TYPES:
        cursor.execute(
            "SELECT attname, format_type(atttypid, NULL) FROM pg_attribute "
            "WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped",
            [table],
        )
        types = dict(cursor.fetchall())
        fields = [Span._meta.get_field(name) for name in SPAN_FIELDS]
        _COLUMN_TYPES[table] = [
            "json" if isinstance(field, JSONTextField) else types[field.column] for field in fields
        ]
    return _COLUMN_TYPES[table]


def positions_update(moved: list[tuple[int, int, date]]) -> None:
    """Set span positions, given as (span pk, position, spans day), in one executemany; the day
    keeps each update in its partition."""
    if not moved:
        return
    table = quote(Span._meta.db_table)
    if connection.vendor != "postgresql":
        sql = f"UPDATE {table} SET position = %s WHERE id = %s AND trace_day = %s"  # noqa: S608
        with binding_cursor() as cursor:
            cursor.executemany(sql, [(position, pk, day) for pk, position, day in moved])
        return
    by_day: dict[date, tuple[list[int], list[int]]] = {}
    for pk, position, day in moved:
        pks, positions = by_day.setdefault(day, ([], []))
        pks.append(pk)
        positions.append(position)
    # One statement a day (nearly always one), the day a constant so only its partition is
    # planned; a statement a span cost a parse, plan and round trip each.
    sql = (
        f"UPDATE {table} AS s SET position = m.position "  # noqa: S608 - model's names
        "FROM unnest(%s::bigint[], %s::integer[]) AS m(id, position) "
        "WHERE s.trace_day = %s AND s.id = m.id"
    )
    with connection.cursor() as cursor:
        for day, (pks, positions) in by_day.items():
            cursor.execute(sql, [pks, positions, day])
