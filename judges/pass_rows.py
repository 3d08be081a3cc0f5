"""The rows every judge pass reads and writes, in plain SQL: the claim (with the load of the
pass on PostgreSQL), the request-cache lookup, the lock on a trace's passes, the store, and on
the pass that finishes a trace, its written verdict and whether the run is done.

Judging is bounded by worker CPU, and the ORM building these statements was the largest
part of a pass's CPU; the statements are the ORM's own, written out once. Rows become model
instances through core.plain_rows, converted and built as a queryset's are.
"""

from datetime import timedelta
from functools import cache

from django.conf import settings
from django.db import connection
from django.db.models import Field
from django.utils import timezone

from core.plain_rows import instance_from_row, instances_from_rows, model_fields, select_list
from judges.models import (
    JudgeConfig,
    JudgeRun,
    JudgeRunScope,
    JudgeRunStatus,
    Judgment,
    JudgmentStatus,
    Verdict,
)
from traces.models import Span, Trace

_JUDGMENT = Judgment._meta.db_table
_RUN = JudgeRun._meta.db_table
_VERDICT = Verdict._meta.db_table

# Never read by reconciliation, and the largest columns of a pass.
UNREAD_WHEN_LOCKED = ("raw_response", "explanation", "cited_spans")
# A pass's related rows, loaded with it by the claim.
CLAIM_RELATED = (("trace", Trace), ("config", JudgeConfig), ("run", JudgeRun))


CLAIM_CONDITION = f"""
  id = %s
  AND (status = %s OR (status = %s AND lease_until < %s))
  AND NOT EXISTS (
    SELECT 1 FROM {_RUN}
    WHERE {_RUN}.id = {_JUDGMENT}.run_id AND {_RUN}.status = %s
  )
"""  # noqa: S608 - the models' tables


def _claim_params(judgment_id: int) -> list:
    now = timezone.now()
    lease_until = now + timedelta(seconds=settings.JUDGE_CLAIM_LEASE_SECONDS)
    stamp = connection.ops.adapt_datetimefield_value
    return [
        JudgmentStatus.RUNNING.value,
        stamp(lease_until),
        judgment_id,
        JudgmentStatus.PENDING.value,
        JudgmentStatus.RUNNING.value,
        stamp(now),
        JudgeRunStatus.CANCELLED.value,
    ]


_CLAIM_SQL = f"UPDATE {_JUDGMENT} SET status = %s, lease_until = %s WHERE {CLAIM_CONDITION}"  # noqa: S608 - constant text


def judgment_claim(judgment_id: int) -> bool:
    """Take a pass for this worker: pending, or running under a lease that ran out, of a run
    that was not cancelled."""
    with connection.cursor() as cursor:
        cursor.execute(_CLAIM_SQL, _claim_params(judgment_id))
        return cursor.rowcount == 1


@cache
def _claim_and_load_sql() -> str:
    # The claim returns the claimed row; the join reads its trace, config and run in the
    # same statement (PostgreSQL: an UPDATE in a WITH, its RETURNING joined).
    columns = [select_list("claimed", model_fields(Judgment))]
    joins = []
    for name, model in CLAIM_RELATED:
        columns.append(select_list(name, model_fields(model)))
        table = model._meta.db_table
        joins.append(f"JOIN {table} {name} ON {name}.id = claimed.{name}_id")
    returning = ", ".join(connection.ops.quote_name(f.column) for f in model_fields(Judgment))
    return (
        f"WITH claimed AS (UPDATE {_JUDGMENT} SET status = %s, lease_until = %s "  # noqa: S608 - model columns
        f"WHERE {CLAIM_CONDITION} RETURNING {returning}) "
        f"SELECT {', '.join(columns)} FROM claimed {' '.join(joins)}"
    )


def judgment_claim_and_load(judgment_id: int) -> Judgment | None:
    """Claim a pass (as `judgment_claim`) and load it with its trace, config and run; None
    when it was not claimed. One statement on PostgreSQL, two elsewhere."""
    if connection.vendor != "postgresql":
        if not judgment_claim(judgment_id):
            return None
        related = [name for name, _ in CLAIM_RELATED]
        return Judgment.objects.select_related(*related).filter(pk=judgment_id).first()
    with connection.cursor() as cursor:
        cursor.execute(_claim_and_load_sql(), _claim_params(judgment_id))
        row = cursor.fetchone()
    if row is None:
        return None
    fields = model_fields(Judgment)
    judgment = instance_from_row(Judgment, fields, row[: len(fields)])
    start = len(fields)
    for name, model in CLAIM_RELATED:
        related_fields = model_fields(model)
        related = instance_from_row(model, related_fields, row[start : start + len(related_fields)])
        Judgment._meta.get_field(name).set_cached_value(judgment, related)
        start += len(related_fields)
    return judgment


_CACHED_REPLY_SQL = (
    f"SELECT raw_response FROM {_JUDGMENT} "  # noqa: S608 - the model's table
    "WHERE request_hash = %s AND status = %s AND id <> %s ORDER BY id LIMIT 1"
)


def cached_reply_text(digest: str, judgment_id: int) -> str | None:
    """The stored reply of the earliest finished pass that sent this exact request."""
    with connection.cursor() as cursor:
        cursor.execute(_CACHED_REPLY_SQL, [digest, JudgmentStatus.DONE.value, judgment_id])
        row = cursor.fetchone()
    return None if row is None else row[0]


# The statements below are built once a process (its one database), not on every pass.


@cache
def _spans_sql() -> tuple[str, str]:
    table = connection.ops.quote_name(Span._meta.db_table)
    select = f"SELECT {select_list(table, model_fields(Span))} FROM {table} WHERE trace_id = %s"  # noqa: S608
    return f"{select} AND trace_day = %s ORDER BY position, id", f"{select} ORDER BY position, id"


def trace_spans_ordered(trace: Trace) -> list[Span]:
    """The trace's spans in trace order, as `trace.spans` gives them, read from its day's
    partition alone: every span carries its trace's `spans_day`. None there while the trace
    counts spans means retention moved them since `trace` was read; they are read again."""
    in_day, anywhere = _spans_sql()
    with connection.cursor() as cursor:
        cursor.execute(in_day, [trace.pk, trace.spans_day])
        rows = cursor.fetchall()
        if not rows and trace.span_count:
            cursor.execute(anywhere, [trace.pk])
            rows = cursor.fetchall()
    spans = instances_from_rows(Span, model_fields(Span), rows)
    for span in spans:
        Span._meta.get_field("trace").set_cached_value(span, trace)
    return spans


@cache
def _passes_locked_sql() -> str:
    fields = model_fields(Judgment, UNREAD_WHEN_LOCKED)
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    return (
        f"SELECT {select_list(_JUDGMENT, fields)} FROM {_JUDGMENT} "  # noqa: S608
        f"WHERE trace_id = %s AND run_id = %s ORDER BY id{lock}"
    )


def passes_locked(trace_id: int, run_id: int) -> list[Judgment]:
    """Every pass of (trace, run), locked in primary-key order so concurrent finishers queue
    up, without the columns reconciliation never reads. Inside the caller's transaction."""
    with connection.cursor() as cursor:
        cursor.execute(_passes_locked_sql(), [trace_id, run_id])
        rows = cursor.fetchall()
    return instances_from_rows(Judgment, model_fields(Judgment, UNREAD_WHEN_LOCKED), rows)


@cache
def _store_sql(names: tuple[str, ...]) -> tuple[str, tuple[Field, ...]]:
    fields = tuple(Judgment._meta.get_field(name) for name in names)
    assignments = ", ".join(f"{connection.ops.quote_name(f.column)} = %s" for f in fields)
    return f"UPDATE {_JUDGMENT} SET {assignments} WHERE id = %s", fields  # noqa: S608


def judgment_store(judgment: Judgment, names: list[str]) -> None:
    """Write these fields of a pass (as `save(update_fields=names)` would; no signal listens
    to a pass's save)."""
    sql, fields = _store_sql(tuple(names))
    values = [f.get_db_prep_save(getattr(judgment, f.attname), connection) for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*values, judgment.pk])


_VERDICT_WRITTEN_SQL = (
    f"SELECT id FROM {_VERDICT} WHERE trace_id = %s AND run_id = %s ORDER BY id LIMIT 1"  # noqa: S608
)


def verdict_written_id(trace_id: int, run_id: int) -> int | None:
    """The id of the verdict a run already wrote for a trace, if it did."""
    with connection.cursor() as cursor:
        cursor.execute(_VERDICT_WRITTEN_SQL, [trace_id, run_id])
        row = cursor.fetchone()
    return None if row is None else row[0]


_RUN_FINISH_SQL = f"""
    UPDATE {_RUN} SET status = %s, finished_at = %s
    WHERE id = %s AND status = %s AND NOT (online = %s AND scope = %s)
      AND NOT EXISTS (
        SELECT 1 FROM {_JUDGMENT} WHERE run_id = %s AND status IN (%s, %s)
      )
"""  # noqa: S608 - the models' tables


def judge_run_finish_if_done(run_id: int) -> bool:
    """Mark a run done once none of its passes is outstanding, in one statement; a standing
    online run of traces never ends (each idle-session sweep starts a run of its own, which
    does)."""
    params = [
        JudgeRunStatus.DONE.value,
        connection.ops.adapt_datetimefield_value(timezone.now()),
        run_id,
        JudgeRunStatus.RUNNING.value,
        True,
        JudgeRunScope.TRACE.value,
        run_id,
        JudgmentStatus.PENDING.value,
        JudgmentStatus.RUNNING.value,
    ]
    with connection.cursor() as cursor:
        cursor.execute(_RUN_FINISH_SQL, params)
        return cursor.rowcount == 1
