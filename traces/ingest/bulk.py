"""Bulk writes for ingestion that the ORM makes slow: COPY on PostgreSQL, one executemany UPDATE.

Django's bulk_update builds a CASE per field and row, and its PostgreSQL bulk_create dumps
every column as an array; at thousands of spans per second both dominate the request.
"""

from __future__ import annotations

import json

import orjson
from django.db import connection
from psycopg.types.json import Jsonb

from traces.models import Span

_STAGING = "span_incoming"


def _columns(model, fields: list[str]):
    return [model._meta.get_field(name) for name in fields]


def rows_update(model, objects: list, fields: list[str]) -> None:
    """UPDATE each object's fields by primary key in one executemany (pipelined by psycopg)."""
    if not objects:
        return
    quote = connection.ops.quote_name
    columns = _columns(model, fields)
    assignments = ", ".join(f"{quote(c.column)} = %s" for c in columns)
    # Table and column names come from the model, never from input.
    sql = (
        f"UPDATE {quote(model._meta.db_table)} SET {assignments} "  # noqa: S608
        f"WHERE {quote(model._meta.pk.column)} = %s"
    )
    params = [
        [c.get_db_prep_save(getattr(obj, c.attname), connection) for c in columns] + [obj.pk]
        for obj in objects
    ]
    with connection.cursor() as cursor:
        cursor.executemany(sql, params)


SPAN_FIELDS = [
    "trace",
    "span_id",
    "parent_span_id",
    "name",
    "kind",
    "started_at",
    "ended_at",
    "duration_ms",
    "input",
    "output",
    "attributes",
    "status",
    "error_message",
    "tool_name",
    "tool_call_id",
    "model",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "position",
    "component",
]
_JSON = {"input", "output", "attributes"}


_JSON_INDEXES = [i for i, name in enumerate(SPAN_FIELDS) if name in _JSON]


def _json_dumps(value) -> bytes | str:
    """orjson is several times faster than json on span payloads; json takes what it refuses."""
    try:
        return orjson.dumps(value)
    except TypeError:  # non-string keys, integers beyond 64 bits
        return json.dumps(value)


def spans_insert_new(rows: list[list]) -> None:
    """Insert span rows (values in SPAN_FIELDS order), skipping (trace, span_id) already stored."""
    if not rows:
        return
    if connection.vendor != "postgresql":
        attnames = [Span._meta.get_field(name).attname for name in SPAN_FIELDS]
        spans = [Span(**dict(zip(attnames, row, strict=True))) for row in rows]
        Span.objects.bulk_create(spans, ignore_conflicts=True, batch_size=2000)
        return
    # Column names come from the model, never from input.
    names = ", ".join(connection.ops.quote_name(c.column) for c in _columns(Span, SPAN_FIELDS))
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TEMP TABLE IF NOT EXISTS {_STAGING} ON COMMIT DELETE ROWS AS "  # noqa: S608
            f"SELECT {names} FROM traces_span WITH NO DATA"
        )
        with cursor.cursor.copy(f"COPY {_STAGING} ({names}) FROM STDIN") as copy:
            for row in rows:
                for index in _JSON_INDEXES:
                    if row[index] is not None:
                        row[index] = Jsonb(row[index], dumps=_json_dumps)
                copy.write_row(row)
        cursor.execute(
            f"INSERT INTO traces_span ({names}) SELECT {names} FROM {_STAGING} "  # noqa: S608
            "ON CONFLICT (trace_id, span_id) DO NOTHING"
        )
        # Several stores may share one transaction (one per project of a request).
        cursor.execute(f"TRUNCATE {_STAGING}")
