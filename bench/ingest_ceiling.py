"""The ceiling bench/ingest.py compares evalsite with: the same OTLP bodies decoded, flattened
to span rows and COPYed into a PostgreSQL table of the same shape by one process, no web server.

Its spans per CPU-second (this process + its PostgreSQL backend) is what storing these spans
costs at the least; evalsite's figure is printed as a share of it.
"""

from __future__ import annotations

import base64
import time
from datetime import UTC, datetime

import orjson
import psycopg
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from psycopg.types.json import Jsonb

from bench.paired_rounds import cpu_seconds

TABLE = "bench_ceiling_span"
COLUMNS = (
    "trace_id, span_id, parent_span_id, name, kind, started_at, ended_at, "
    "duration_ms, attributes, status, position"
)


def _value(any_value):
    which = any_value.WhichOneof("value")
    if which == "array_value":
        return [_value(item) for item in any_value.array_value.values]
    if which == "kvlist_value":
        return {kv.key: _value(kv.value) for kv in any_value.kvlist_value.values}
    if which == "bytes_value":
        return base64.b64encode(any_value.bytes_value).decode()
    return getattr(any_value, which) if which else None


def _time(nanos: int):
    return datetime.fromtimestamp(nanos / 1e9, tz=UTC) if nanos else None


def _rows(body: bytes):
    message = ExportTraceServiceRequest()
    message.ParseFromString(body)
    position = 0
    for resource_spans in message.resource_spans:
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                attributes = {kv.key: _value(kv.value) for kv in span.attributes}
                start, end = span.start_time_unix_nano, span.end_time_unix_nano
                position += 1
                yield (
                    span.trace_id.hex(),
                    span.span_id.hex(),
                    span.parent_span_id.hex(),
                    span.name,
                    span.kind,
                    _time(start),
                    _time(end),
                    (end - start) // 1_000_000 if start and end else None,
                    Jsonb(attributes, dumps=orjson.dumps),
                    span.status.code,
                    position,
                )


class CeilingTable:
    """The ceiling's table in a database, kept over several measurements: the paired rounds of
    bench/ingest.py COPY a slice of the bodies in each, into a table that grows as the trees'."""

    def __init__(self, database_url: str):
        self.conn = psycopg.connect(database_url, autocommit=True)
        self.conn.execute(f"DROP TABLE IF EXISTS {TABLE}")
        self.conn.execute(
            f"CREATE UNLOGGED TABLE {TABLE} (id bigserial PRIMARY KEY, trace_id text, "
            "span_id text, parent_span_id text, name text, kind int, started_at timestamptz, "
            "ended_at timestamptz, duration_ms bigint, attributes jsonb, status int, "
            "position int, UNIQUE (trace_id, span_id))"
        )
        self.conn.execute(f"ALTER TABLE {TABLE} SET LOGGED")
        self.backend = self.conn.info.backend_pid

    def measure(self, bodies: list[bytes]) -> dict:
        """Decode, flatten and COPY every body (one transaction each, as a request would)."""
        spans = 0
        cpu_before = time.process_time() + cpu_seconds(self.backend)
        began = time.perf_counter()
        for body in bodies:
            with (
                self.conn.transaction(),
                self.conn.cursor() as cursor,
                cursor.copy(f"COPY {TABLE} ({COLUMNS}) FROM STDIN") as copy,
            ):
                for row in _rows(body):
                    copy.write_row(row)
                    spans += 1
        elapsed = time.perf_counter() - began
        cpu = time.process_time() + cpu_seconds(self.backend) - cpu_before
        return {"spans": spans, "cpu": cpu, "wall": elapsed, "per_cpu_second": spans / cpu}

    def close(self) -> None:
        self.conn.execute(f"DROP TABLE {TABLE}")
        self.conn.close()


def ceiling_measure(database_url: str, bodies: list[bytes]) -> dict:
    """All of `bodies` through a fresh ceiling table."""
    table = CeilingTable(database_url)
    try:
        return table.measure(bodies)
    finally:
        table.close()
