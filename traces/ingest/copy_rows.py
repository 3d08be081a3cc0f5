"""Binary COPY of plain rows into a model's table (PostgreSQL): how ingestion inserts spans,
several times faster than an INSERT of the same values.

COPY carries no types: psycopg is told each column's, read once a process from the catalog and
given by OID (psycopg looks a type name up in Python for each column of each COPY).
JSON values go through orjson with no wrapper object a value. The statement is logged like any
other query when queries are (DEBUG, tests).
"""

from __future__ import annotations

import functools
import json
import time

import orjson
from django.db import connection
from psycopg import postgres
from psycopg.adapt import Dumper
from psycopg.pq import Format

from core.fields import JSONTextField


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


def rows_copy(model, fields: tuple[str, ...], rows) -> None:
    """COPY rows (each a sequence of values in `fields` order) into `model`'s table."""
    sql = _copy_sql(model, fields)
    started = time.monotonic()
    with connection.cursor() as cursor:
        types = _column_types(cursor, model, fields)
        # Set on this cursor only.
        cursor.cursor.adapters.register_dumper(None, _JsonbDumper)
        cursor.cursor.adapters.register_dumper(None, _JsonTextDumper)
        with cursor.cursor.copy(sql) as copy:
            copy.set_types(types)
            for row in rows:
                copy.write_row(row)
    if connection.queries_logged:
        connection.queries_log.append({"sql": sql, "time": f"{time.monotonic() - started:.3f}"})


class _JsonbDumper(Dumper):
    """jsonb in binary COPY: its version byte and the value's JSON."""

    format = Format.BINARY
    oid = postgres.types["jsonb"].oid

    def dump(self, obj) -> bytes:
        data = json_dumps(obj)
        return b"\x01" + (data if isinstance(data, bytes) else data.encode())


class _JsonTextDumper(Dumper):
    """A JSONTextField's value. PostgreSQL reads each field of a binary COPY in its column's own
    binary form, which for text is its UTF-8 bytes, as it is for json: such columns are given to
    psycopg as json, whose dumper this is."""

    format = Format.BINARY
    oid = postgres.types["json"].oid

    def dump(self, obj) -> bytes:
        try:  # json_dumps inlined: this runs three times a span
            return orjson.dumps(obj)
        except TypeError:
            return json.dumps(obj).encode()


@functools.cache
def _copy_sql(model, fields: tuple[str, ...]) -> str:
    names = ", ".join(quote(model._meta.get_field(name).column) for name in fields)
    # By table name: a partitioned table takes COPY the same way.
    return f"COPY {quote(model._meta.db_table)} ({names}) FROM STDIN (FORMAT BINARY)"  # noqa: S608


_COLUMN_TYPES: dict[tuple, list[int]] = {}


def _column_types(cursor, model, fields: tuple[str, ...]) -> list[int]:
    key = (model._meta.db_table, fields)
    if key not in _COLUMN_TYPES:
        cursor.execute(
            "SELECT attname, format_type(atttypid, NULL) FROM pg_attribute "
            "WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped",
            [model._meta.db_table],
        )
        types = dict(cursor.fetchall())
        registry = cursor.cursor.adapters.types
        _COLUMN_TYPES[key] = [
            registry.get_oid("json" if isinstance(field, JSONTextField) else types[field.column])
            for field in map(model._meta.get_field, fields)
        ]
    return _COLUMN_TYPES[key]
