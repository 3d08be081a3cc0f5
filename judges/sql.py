"""judges' plain SQL outside a pass's own statements (judges/pass_rows.py): statements the
ORM would build on every call of a hot path, written once, table names from the models."""

from collections.abc import Sequence

from django.db import connection
from django.db.models import Q

from core.prepared_sql import int_array, prepared_cursor
from judges.models import (
    JudgeCalibration,
    OnlineRuleHour,
    Rubric,
    TraceOnlineDecision,
    Verdict,
)
from metrics.models import RedFlagCheck
from traces.models import Trace

_CALIBRATION_STATUS_SQL = (
    f"SELECT status FROM {JudgeCalibration._meta.db_table} "  # noqa: S608 - the model's table
    "WHERE rubric_version_id = %s AND config_id = %s"
)
# The ids as an array the planner counts, so each custom plan costs less than the generic one
# and PostgreSQL plans the statement each run: a generic plan, made from the statistics of its
# moment, kept a sequential scan chosen while the table was small (bench/RESULTS.md).
_TRACE_IDS = "%(traces)s::bigint[]"
_STALE_SQL = (
    f"UPDATE {Verdict._meta.db_table} SET stale = true "  # noqa: S608 - the model's table
    f"WHERE NOT stale AND (trace_id = ANY({_TRACE_IDS}) "
    "OR session_id = ANY(%(sessions)s::bigint[]))"
)


def calibration_status(rubric_version_id: int, config_id: int) -> str | None:
    """The calibration status of a judge version, None when it has none yet; one plain query."""
    with connection.cursor() as cursor:
        cursor.execute(_CALIBRATION_STATUS_SQL, [rubric_version_id, config_id])
        row = cursor.fetchone()
    return row[0] if row else None


def verdicts_stale_set(trace_ids: Sequence[int], session_ids: Sequence[int]) -> int:
    """Mark stale the verdicts on these traces or sessions; returns how many changed."""
    if connection.vendor == "postgresql":
        # Ingest asks this of every request with late spans: the statement is written once.
        with connection.cursor() as cursor:
            cursor.execute(_STALE_SQL, _stale_params(trace_ids, session_ids))
            return cursor.rowcount
    return Verdict.objects.filter(
        Q(trace_id__in=trace_ids) | Q(session_id__in=session_ids), stale=False
    ).update(stale=True)


# The stale mark rides with the question ingest asks next of the same traces: a request with
# late spans pays one round trip, one parse and one plan for both.
_STALE_AND_CHECKED_SQL = (
    f"WITH stale AS ({_STALE_SQL}) "  # noqa: S608 - the models' tables
    f"SELECT trace_id FROM {RedFlagCheck._meta.db_table} WHERE trace_id = ANY({_TRACE_IDS})"
)


def _stale_params(trace_ids: Sequence[int], session_ids: Sequence[int]) -> dict:
    return {"traces": int_array(trace_ids), "sessions": int_array(session_ids)}


def late_verdicts_stale_set(trace_ids: Sequence[int], session_ids: Sequence[int]) -> list[int]:
    """Mark stale the verdicts on these traces or sessions, and return which of the traces had
    their red flags checked (metrics.redflag_store checks those again); one statement on
    PostgreSQL, whose data-modifying WITH runs whether or not the query reads it."""
    if connection.vendor == "postgresql":
        # Prepared: ingest asks it of nearly every request with late spans.
        with prepared_cursor() as cursor:
            cursor.execute(_STALE_AND_CHECKED_SQL, _stale_params(trace_ids, session_ids))
            return [trace_id for (trace_id,) in cursor.fetchall()]
    verdicts_stale_set(trace_ids, session_ids)
    return list(
        RedFlagCheck.objects.filter(trace_id__in=trace_ids).values_list("trace_id", flat=True)
    )


_ONLINE_HOURS_ADD_SQL = (
    f"INSERT INTO {OnlineRuleHour._meta.db_table} "  # noqa: S608 - the model's table
    "(rubric_id, project_id, hour, outcome, count) VALUES {values} "
    "ON CONFLICT (rubric_id, project_id, hour, outcome) "
    f"DO UPDATE SET count = {OnlineRuleHour._meta.db_table}.count + excluded.count"
)


def online_rule_hours_add(rows: Sequence[tuple]) -> None:
    """Add (rubric id, project id, hour, outcome, count) rows to the hourly counters in one
    statement; PostgreSQL and SQLite both take this upsert."""
    if not rows:
        return
    values = ", ".join(["(%s, %s, %s, %s, %s)"] * len(rows))
    # The hour as the ORM stores it on this database (SQLite keeps text), so reads match.
    adapt = connection.ops.adapt_datetimefield_value
    params = [
        value
        for rubric_id, project_id, hour, outcome, count in rows
        for value in (rubric_id, project_id, adapt(hour), outcome, count)
    ]
    with connection.cursor() as cursor:
        cursor.execute(_ONLINE_HOURS_ADD_SQL.format(values=values), params)


# Only for rules still live: the caller's list of them may be seconds old, and a rubric deleted
# or turned off since must not fail (or be counted by) an ingest that has already committed.
_DECISIONS_NOT_SETTLED_SQL = (
    f"INSERT INTO {TraceOnlineDecision._meta.db_table} "  # noqa: S608 - the models' tables
    "(trace_id, rubric_id, outcome, task_type, decided_at) "
    "SELECT column1, column2, column3, column4, column5 FROM (VALUES {values}) AS arrived "
    f"WHERE EXISTS (SELECT 1 FROM {Rubric._meta.db_table} r WHERE r.id = column2 "
    "AND r.judge_new_traces) "
    f"AND EXISTS (SELECT 1 FROM {Trace._meta.db_table} t WHERE t.id = column1) "
    "ON CONFLICT (trace_id, rubric_id) DO NOTHING RETURNING rubric_id, trace_id"
)

DECISIONS_CHUNK = 1000


def decisions_not_settled_insert(pairs: Sequence[tuple[int, int]], outcome: str, now) -> list:
    """Store `outcome` for (trace id, rubric id) pairs that have no decision yet; returns the
    (rubric id, trace id) pairs stored, so only those are counted. PostgreSQL and SQLite (3.35+)
    both take this statement."""
    decided = connection.ops.adapt_datetimefield_value(now)
    stored = []
    # In chunks: a request of many traces would pass the databases' limit on parameters.
    for start in range(0, len(pairs), DECISIONS_CHUNK):
        chunk = pairs[start : start + DECISIONS_CHUNK]
        values = ", ".join(["(%s, %s, %s, '', %s)"] * len(chunk))
        params = [
            value
            for trace_id, rubric_id in chunk
            for value in (trace_id, rubric_id, outcome, decided)
        ]
        with connection.cursor() as cursor:
            cursor.execute(_DECISIONS_NOT_SETTLED_SQL.format(values=values), params)
            stored += cursor.fetchall()
    return stored
