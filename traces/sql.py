"""traces' raw SQL outside ingest: the statements sessions, their totals and retention run,
table and column names from the models, values always bound."""

from __future__ import annotations

import functools
from datetime import datetime

from django.db import connection
from django.db.models import NOT_PROVIDED

from core.prepared_sql import int_array, prepared_cursor
from traces.ingest.bulk_sql import rows_json
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
    rows = []
    for ext in external_ids:
        values = initial[ext]
        rows.append(
            {
                column: given[attname]
                if attname in given
                else ext
                if attname == "external_id"
                else values[attname]
                if attname in values
                else default()
                for column, attname, default in _session_insert_columns()
            }
        )
    # Prepared: every request that names sessions sends it, and its plan suits any values.
    with prepared_cursor() as cursor:
        cursor.execute(_sessions_upsert_sql(), [rows_json(rows), project_pk, external_ids])
        fetched = cursor.fetchall()
    found = {ext: pk for ext, pk, _ in fetched}
    made = frozenset(pk for _, pk, was_made in fetched if was_made)
    missing = [ext for ext in external_ids if ext not in found]
    if missing:
        found.update(_sessions_read(project_pk, missing))
    return found, made


@functools.cache
def _session_insert_columns() -> tuple:
    """(column, attname, default) of the Session columns a new row is written with."""
    return tuple(
        (field.column, field.attname, field.get_default)
        for field in Session._meta.concrete_fields
        if not field.primary_key and field.db_default is NOT_PROVIDED
    )


@functools.cache
def _sessions_upsert_sql() -> str:
    # One statement inserts the missing sessions (in conversation id order, as every writer
    # does) and reads the others; a session another request committed since the statement
    # began is in neither part, and is read after. The rows come as one JSON document read by
    # the table's row type, as the trace rows do. Names come from the model, not input.
    table = quote(Session._meta.db_table)
    names = ", ".join(quote(column) for column, _, _ in _session_insert_columns())
    values = ", ".join(f"v.{quote(column)}" for column, _, _ in _session_insert_columns())
    return (
        f"WITH made AS (INSERT INTO {table} ({names}) "  # noqa: S608
        f"SELECT {values} FROM json_populate_recordset(NULL::{table}, %s::json) AS v "
        f"ORDER BY v.{quote(Session._meta.get_field('external_id').column)} "
        "ON CONFLICT (project_id, external_id) DO NOTHING RETURNING external_id, id) "
        f"SELECT external_id, id, true FROM made UNION ALL SELECT external_id, id, false "
        f"FROM {table} WHERE project_id = %s AND external_id = ANY(%s)"
    )


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


# Values of one session's row, as _by_session (traces.session_totals) sums a request's traces.
_ADDED_COLUMNS = (
    "id bigint, trace_count integer, error_count integer, input_tokens bigint, "
    "output_tokens bigint, cost_usd numeric, held_out_trace_count integer, "
    "received timestamptz, started timestamptz, started_task text, latest timestamptz, "
    "untimed_task text"
)
# As _ADD_TIMED and then _ADD_UNTIMED would leave the row: an untimed trace's task is the first
# only while the session has no time, which no timed trace of the request gave it.
_ADD_LOCKED = (
    "WITH locked AS MATERIALIZED (SELECT id FROM {table} "  # noqa: S608
    "WHERE id = ANY(%s::bigint[]) "
    "ORDER BY id FOR UPDATE) "
    "UPDATE {table} AS s SET trace_count = s.trace_count + v.trace_count, "
    "error_count = s.error_count + v.error_count, "
    "input_tokens = s.input_tokens + v.input_tokens, "
    "output_tokens = s.output_tokens + v.output_tokens, "
    "cost_usd = s.cost_usd + v.cost_usd, "
    "held_out_trace_count = s.held_out_trace_count + v.held_out_trace_count, "
    "last_received_at = CASE WHEN s.last_received_at IS NULL OR s.last_received_at < v.received "
    "THEN v.received ELSE s.last_received_at END, "
    "first_task = CASE WHEN v.started IS NOT NULL THEN CASE WHEN s.first_started_at IS NULL "
    "OR s.first_started_at >= v.started THEN v.started_task ELSE s.first_task END "
    "WHEN s.first_started_at IS NULL AND s.first_task = '' THEN v.untimed_task "
    "ELSE s.first_task END, "
    "first_started_at = CASE WHEN v.started IS NOT NULL AND (s.first_started_at IS NULL "
    "OR s.first_started_at > v.started) THEN v.started ELSE s.first_started_at END, "
    "last_trace_at = CASE WHEN v.latest IS NOT NULL AND (s.last_trace_at IS NULL "
    "OR s.last_trace_at < v.latest) THEN v.latest ELSE s.last_trace_at END "
    f"FROM json_to_recordset(%s::json) AS v({_ADDED_COLUMNS}) "
    "WHERE s.id = v.id AND s.id IN (SELECT id FROM locked)"
)


def session_totals_rows_add(
    timed: list[list], untimed: list[list], summed: list[dict], lock_also: list[int]
) -> None:
    """Add traces' differences to their sessions' totals (session_totals_add builds the rows, a
    trace's and the same `summed`, one a session). On PostgreSQL one statement locks the
    sessions (theirs and `lock_also`) in id order and adds to each: every session is locked
    before the update reaches it, so two requests never wait on each other crosswise. SQLite,
    one writer, takes no lock and the rows one by one."""
    if connection.vendor != "postgresql":
        session_totals_rows_add_each(timed, untimed)
        return
    ids = sorted({row["id"] for row in summed} | set(lock_also))
    # Prepared: sent by every request that adds traces to stored sessions.
    with prepared_cursor() as cursor:
        cursor.execute(_ADD_LOCKED.format(table=_table()), [int_array(ids), rows_json(summed)])


def session_totals_rows_add_each(timed: list[list], untimed: list[list]) -> None:
    """Add traces' differences to their sessions' totals, one UPDATE a row (the session id last
    in each), the sessions locked by the caller."""
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
