"""Bulk writes for ingestion that the ORM makes slow: an upsert that returns the trace rows,
COPY for spans on PostgreSQL, and executemany UPDATEs (pipelined by psycopg).

Django's bulk_update builds a CASE per field and row, its PostgreSQL bulk_create dumps every
column as an array, and model instances cost more than the values they carry; at thousands of
spans per second all three dominate a request. Other databases (SQLite in embedded mode) take
the ORM's path.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from operator import attrgetter
from typing import NamedTuple

import orjson
from django.db import connection
from django.db.models import NOT_PROVIDED, JSONField
from psycopg.types.json import Jsonb

from traces.ingest.records import SpanRecord
from traces.models import Span, Trace
from traces.span_partitions import span_partitions_ensure

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
_TRACE_READ = ["external_id", "completed_at", "held_out", "spans_day", *TRACE_FIELDS]
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
_JSON_INDEXES = [
    i for i, name in enumerate(SPAN_FIELDS) if name in ("input", "output", "attributes")
]


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


def _json_dumps(value) -> bytes | str:
    """orjson is several times faster than json on span payloads; json takes what it refuses."""
    try:
        return orjson.dumps(value)
    except TypeError:  # non-string keys, integers beyond 64 bits
        return json.dumps(value)


def _quote(name: str) -> str:
    return connection.ops.quote_name(name)


def _binding_cursor():
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


def traces_upsert(
    project_pk: int, external_ids: list[str], source_format: str, now: datetime
) -> tuple[list[dict], set[str]]:
    """Create the traces that do not exist yet and lock all of them, in external id order.

    Returns each trace's `pk` and _TRACE_READ values, and the external ids created just now.
    """
    if connection.vendor != "postgresql":
        Trace.objects.bulk_create(
            [
                Trace(project_id=project_pk, external_id=ext, source_format=source_format)
                for ext in external_ids
            ],
            ignore_conflicts=True,
        )
        rows = (
            Trace.objects.select_for_update()
            .filter(project_id=project_pk, external_id__in=external_ids)
            .order_by("pk")
            .values("pk", *(Trace._meta.get_field(name).attname for name in _TRACE_READ))
        )
        return list(rows), set()
    given = {
        "project_id": project_pk,
        "source_format": source_format,
        "created_at": now,
        "spans_day": now.astimezone(UTC).date(),
    }
    columns, values, params = [], [], []
    for field in Trace._meta.concrete_fields:
        if field.primary_key or field.db_default is not NOT_PROVIDED:
            continue
        columns.append(_quote(field.column))
        if field.attname == "external_id":
            values.append("ext")
            continue
        value = given[field.attname] if field.attname in given else field.get_default()
        values.append("%s")
        params.append(field.get_db_prep_save(value, connection))
    read = [Trace._meta.get_field(name) for name in _TRACE_READ]
    # Table and column names come from the model, never from input.
    sql = (
        f"INSERT INTO {_quote(Trace._meta.db_table)} ({', '.join(columns)}) "  # noqa: S608
        f"SELECT {', '.join(values)} FROM unnest(%s::text[]) AS ext ORDER BY ext "
        "ON CONFLICT (project_id, external_id) DO UPDATE SET external_id = EXCLUDED.external_id "
        f"RETURNING xmax = 0, id, {', '.join(_quote(f.column) for f in read)}"
    )
    with _binding_cursor() as cursor:
        cursor.execute(sql, [*params, external_ids])
        fetched = cursor.fetchall()
    rows, created = [], set()
    for was_created, pk, *values in fetched:
        row = {"pk": pk}
        for field, value in zip(read, values, strict=True):
            # Django reads jsonb as text and decodes it in the field; so do we.
            row[field.attname] = orjson.loads(value) if isinstance(field, JSONField) else value
        rows.append(row)
        if was_created:
            created.add(row["external_id"])
    return rows, created


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
    rows = Span.objects.filter(
        trace_id__in=list(days_by_trace), trace_day__in=set(days_by_trace.values())
    ).values_list("trace_id", *StoredSpan._fields)
    for trace_pk, *values in rows:
        out.setdefault(trace_pk, []).append(StoredSpan(*values))
    return out


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
    names = ", ".join(_quote(Span._meta.get_field(name).column) for name in SPAN_FIELDS)
    # By table name: a partitioned spans table takes COPY the same way.
    with connection.cursor() as cursor:
        types = _span_column_types(cursor)
    with (
        connection.cursor() as cursor,
        cursor.cursor.copy(
            f"COPY {_quote(Span._meta.db_table)} ({names}) FROM STDIN (FORMAT BINARY)"  # noqa: S608
        ) as copy,
    ):
        copy.set_types(types)
        for row in rows:
            for index in _JSON_INDEXES:
                if row[index] is not None:
                    row[index] = Jsonb(row[index], dumps=_json_dumps)
            copy.write_row(row)


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
        _COLUMN_TYPES[table] = [types[Span._meta.get_field(n).column] for n in SPAN_FIELDS]
    return _COLUMN_TYPES[table]


def positions_update(moved: list[tuple[int, int, date]]) -> None:
    """Set span positions, given as (span pk, position, spans day), in one executemany; the day
    keeps each update in its partition."""
    if not moved:
        return
    table = _quote(Span._meta.db_table)
    sql = f"UPDATE {table} SET position = %s WHERE id = %s AND trace_day = %s"  # noqa: S608
    with _binding_cursor() as cursor:
        cursor.executemany(sql, [(position, pk, day) for pk, position, day in moved])


def trace_rows_update(traces: list, fields: list[str]) -> None:
    """UPDATE each trace's fields (read off plain objects by attribute) by primary key."""
    if not traces:
        return
    columns = [Trace._meta.get_field(name) for name in fields]
    assignments = ", ".join(f"{_quote(c.column)} = %s" for c in columns)
    # Table and column names come from the model, never from input.
    sql = f"UPDATE {_quote(Trace._meta.db_table)} SET {assignments} WHERE id = %s"  # noqa: S608
    if connection.vendor == "postgresql":
        # psycopg adapts these values itself; only JSON needs wrapping (and orjson is faster).
        json_columns = {i for i, c in enumerate(columns) if isinstance(c, JSONField)}
        params = [
            [
                Jsonb(getattr(trace, c.attname), dumps=_json_dumps)
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
    with _binding_cursor() as cursor:
        cursor.executemany(sql, params)
