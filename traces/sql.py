"""traces' raw SQL outside ingest: the statements sessions, their totals and retention run,
table and column names from the models, values always bound."""

from __future__ import annotations

from datetime import datetime

from django.db import connection
from django.db.models import NOT_PROVIDED

from traces.ingest.bulk_sql import binding_cursor, column_type
from traces.ingest.copy_rows import quote
from traces.models import Session, Span


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


def _table() -> str:
    return connection.ops.quote_name(Session._meta.db_table)


_ADD = (
    "trace_count = trace_count + %s, error_count = error_count + %s, "
    "input_tokens = input_tokens + %s, output_tokens = output_tokens + %s, "
    "cost_usd = cost_usd + %s, held_out_trace_count = held_out_trace_count + %s, "
    "last_received_at = CASE WHEN last_received_at IS NULL OR last_received_at < %s "
    "THEN %s ELSE last_received_at END"
)
# Every SET expression reads the row as it was, so first_task compares the old first time.
_ADD_TIMED = (
    f"UPDATE {{table}} SET {_ADD}, "  # noqa: S608 - constant text, values bound
    "first_task = CASE WHEN first_started_at IS NULL OR first_started_at >= %s "
    "THEN %s ELSE first_task END, "
    "first_started_at = CASE WHEN first_started_at IS NULL OR first_started_at > %s "
    "THEN %s ELSE first_started_at END, "
    "last_trace_at = CASE WHEN last_trace_at IS NULL OR last_trace_at < %s "
    "THEN %s ELSE last_trace_at END "
    "WHERE id = %s"
)
# A trace without times lists last: its task is the first only while no trace has a time.
_ADD_UNTIMED = (
    f"UPDATE {{table}} SET {_ADD}, "  # noqa: S608 - constant text, values bound
    "first_task = CASE WHEN first_started_at IS NULL AND first_task = '' "
    "THEN %s ELSE first_task END "
    "WHERE id = %s"
)


def session_totals_rows_add(timed: list[list], untimed: list[list]) -> None:
    """Add traces' differences to their sessions' totals, one UPDATE a row (session_totals_add
    builds the rows; the session id is last in each)."""
    with connection.cursor() as cursor:
        # Sorted by session id, so the row locks are taken in the same order everywhere.
        if timed:
            cursor.executemany(
                _ADD_TIMED.format(table=_table()), sorted(timed, key=lambda r: r[-1])
            )
        if untimed:
            cursor.executemany(
                _ADD_UNTIMED.format(table=_table()), sorted(untimed, key=lambda r: r[-1])
            )


def spans_of_traces_delete(trace_ids: list[int]) -> None:
    """Delete the span rows of these traces in one statement (Django's cascade would load every
    span to find them)."""
    table = connection.ops.quote_name(Span._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {table} WHERE trace_id IN ({', '.join(['%s'] * len(trace_ids))})",  # noqa: S608 - names from _meta, values bound
            trace_ids,
        )
