"""The pending log records of a batch's traces, read once per span ingest call.

Written as plain SQL on PostgreSQL (the ORM building the query cost more than the query on the
OTLP hot path, where it runs for every request); other databases take the ORM's path.
"""

from __future__ import annotations

import functools

import orjson
from django.db import connection

from traces.ingest.copy_rows import quote
from traces.models import PendingSpanLog


def pending_logs_read(project_pk: int, external_ids: list[str]) -> list[tuple]:
    """(pk, trace external id, span id, events) of the records waiting for these traces."""
    if connection.vendor != "postgresql":
        return list(
            PendingSpanLog.objects.filter(
                project_id=project_pk, trace_external_id__in=external_ids
            ).values_list("pk", "trace_external_id", "span_id", "events")
        )
    with connection.cursor() as cursor:
        cursor.execute(_pending_sql(), [project_pk, external_ids])
        rows = cursor.fetchall()
    # Django reads jsonb as text and decodes it in the field; so do we.
    return [(pk, ext, span, orjson.loads(events)) for pk, ext, span, events in rows]


@functools.cache
def _pending_sql() -> str:
    field = PendingSpanLog._meta.get_field
    columns = ", ".join(
        quote(field(name).column) for name in ("id", "trace_external_id", "span_id", "events")
    )
    # Table and column names come from the model, never from input.
    return (
        f"SELECT {columns} FROM {quote(PendingSpanLog._meta.db_table)} "  # noqa: S608
        f"WHERE {quote(field('project').column)} = %s "
        f"AND {quote(field('trace_external_id').column)} = ANY(%s)"
    )
