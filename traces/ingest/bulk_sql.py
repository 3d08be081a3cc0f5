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
from decimal import Decimal
from operator import attrgetter
from typing import NamedTuple

import orjson
from django.db import connection
from psycopg.types.json import Json

from core.prepared_sql import binding_cursor
from traces.ingest.copy_rows import quote, rows_copy
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
SPAN_FIELDS = (*SPAN_FIELDS_FROM_STORE, *SPAN_FIELDS_FROM_RECORD)
_record_values = attrgetter(*SPAN_FIELDS_FROM_RECORD)
_DAY_INDEX = SPAN_FIELDS.index("trace_day")


class StoredSpan(NamedTuple):
    """What ordering and totals need of a span an earlier request stored."""

    pk: int
    span_id: str
    parent_span_id: str
    name: str
    tool_name: str
    started_at: datetime | None
    ended_at: datetime | None
    status: str
    kind: str
    input_tokens: int
    output_tokens: int
    cost_usd: object
    position: int


def rows_json(rows: list[dict]) -> Json:
    """Rows (dicts keyed by column) as one JSON parameter, as json_populate_recordset reads it
    into a table's row type: one value to dump instead of an array a column."""
    return Json(rows, dumps=_rows_dumps)


def _rows_dumps(rows: list) -> bytes | str:
    try:
        return orjson.dumps(rows, default=_decimal_text)
    except TypeError:  # non-string keys, integers beyond 64 bits in a JSON column
        return json.dumps(rows, default=str)


def _decimal_text(value):
    if isinstance(value, Decimal):
        return str(value)  # exact: the column reads it as written
    raise TypeError


def span_rows(records: list[SpanRecord], trace_pk: int, positions: list[int], day: date) -> list:
    """A trace's new spans as values in SPAN_FIELDS order, as spans_insert takes them (one call
    a trace: a call a span cost more than building its row)."""
    return [
        [trace_pk, position, day, *_record_values(record)]
        for record, position in zip(records, positions, strict=True)
    ]


def spans_stored(days_by_trace: dict[int, date]) -> dict[int, list[StoredSpan]]:
    """The spans earlier requests stored for these traces (pk -> the trace's spans day), by trace.

    A trace's spans all sit on its day, so naming the days lets PostgreSQL read only their
    partitions instead of probing every day's index."""
    out: dict[int, list[StoredSpan]] = {}
    if not days_by_trace:
        return out
    if connection.vendor == "postgresql":
        with binding_cursor(binary_results=True) as cursor:
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
    rows_copy(Span, SPAN_FIELDS, rows)


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
    # Bound, the arrays in binary: quoting them into the statement's text cost more Python.
    with binding_cursor() as cursor:
        for day, (pks, positions) in by_day.items():
            cursor.execute(positions_update_sql(), [pks, positions, day])


@functools.cache
def positions_update_sql() -> str:
    """Set the positions of spans of one day: (span pks, positions, day) as parameters. One
    statement a day (nearly always one), the day a constant so only its partition is planned;
    a statement a span cost a parse, plan and round trip each."""
    return (
        f"UPDATE {quote(Span._meta.db_table)} AS s SET position = m.position "  # noqa: S608
        "FROM unnest(%b::bigint[], %b::integer[]) AS m(id, position) "
        "WHERE s.trace_day = %s AND s.id = m.id"
    )


def spans_fields_update(changes: list[tuple[int, date, dict[str, dict]]]) -> None:
    """Change stored spans' fields, given as (trace pk, spans day, {span id: {field: value}});
    few (the members of a call merged across requests), so one statement each."""
    for trace_pk, day, by_span in changes:
        for span_id, values in by_span.items():
            Span.objects.filter(trace_id=trace_pk, trace_day=day, span_id=span_id).update(**values)
