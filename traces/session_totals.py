"""Session totals (traces, errors, tokens, cost, first and last time, first task), kept at ingest.

`session_totals_add` runs inside the ingest transaction, after the trace rows are locked
(traces/ingest/store.py). It adds each trace's difference, its values after this request less
its values before, read under that trace's lock: a re-sent span changes no trace total and so
no session total, and a trace is counted once however many requests its spans come in. The
addition is one UPDATE that reads the row it changes (`count = count + n`, earliest and latest
times through CASE), so requests for different traces of one session never overwrite each
other; the session rows are locked in id order first, as the trace rows are, so two requests
never wait on each other crosswise.

Where a difference cannot say it (a trace leaving a session, traces deleted, a held-out flag
changed), `sessions_totals_recount` counts the sessions again from their traces. It locks the
session rows first and reads in a later statement, so under READ COMMITTED it sees every
request that added to them before it, and one that adds after it waits and adds on top.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal
from typing import NamedTuple

from django.db import connection, transaction
from django.db.models import (
    Count,
    DecimalField,
    F,
    IntegerField,
    Max,
    Min,
    OuterRef,
    Q,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce, Substr

from traces.models import Session, Trace
from traces.sql import session_totals_rows_add

FIRST_TASK_CHARS = 200


class TraceTotals(NamedTuple):
    """What a trace adds to its session (a tuple: ingest makes three a trace)."""

    session_id: int | None
    error_count: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: Decimal = Decimal(0)
    started_at: datetime | None = None
    ended_at: datetime | None = None
    task: str = ""
    held_out: bool = False


def trace_totals(trace) -> TraceTotals:
    """The totals of a trace row, or of ingest's StoredTrace (any object with these names)."""
    return TraceTotals(
        session_id=trace.session_id,
        error_count=trace.error_count,
        input_tokens=trace.input_tokens,
        output_tokens=trace.output_tokens,
        cost_usd=trace.cost_usd,
        started_at=trace.started_at,
        ended_at=trace.ended_at,
        task=trace.task,
        held_out=trace.held_out,
    )


def _sessions_lock(session_ids: Iterable[int], session_model=Session) -> list[int]:
    ids = sorted({pk for pk in session_ids if pk})
    if ids:
        # Evaluated for its lock only; SQLite has one writer and ignores it.
        list(
            session_model.objects.select_for_update()
            .filter(pk__in=ids)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
    return ids


def session_totals_initial(traces: list[TraceTotals], now: datetime) -> dict:
    """The totals of a session made for these traces, by Session field: what session_totals_add
    would give it, adding them in this order to an empty session."""
    first = last = None
    task = ""
    timed = [trace for trace in traces if trace.started_at is not None]
    for trace in timed:
        started = trace.started_at
        if first is None or first >= started:
            task = trace.task[:FIRST_TASK_CHARS]
        first = started if first is None else min(first, started)
        latest = trace.ended_at or started
        last = latest if last is None else max(last, latest)
    if not timed:
        task = next((t.task[:FIRST_TASK_CHARS] for t in traces if t.task), "")
    return {
        "trace_count": len(traces),
        "error_count": sum(trace.error_count for trace in traces),
        "input_tokens": sum(trace.input_tokens for trace in traces),
        "output_tokens": sum(trace.output_tokens for trace in traces),
        "cost_usd": sum((trace.cost_usd for trace in traces), Decimal(0)),
        "held_out_trace_count": sum(trace.held_out for trace in traces),
        "first_started_at": first,
        "last_trace_at": last,
        "first_task": task,
        "last_received_at": now,
    }


def session_totals_add(
    before: dict[int, TraceTotals],
    after: dict[int, TraceTotals],
    now: datetime,
    made: frozenset[int] = frozenset(),
) -> None:
    """Add what each trace changed between `before` (absent: a new trace) and `after`, both
    keyed alike (by pk, or by external id). Sessions in `made` were created with their traces'
    totals (session_totals_initial) in this transaction and are left alone.

    One statement on PostgreSQL and, only when a trace left a session, one recount.
    """
    timed, untimed, left = session_totals_rows(before, after, now, made)
    if not (timed or untimed or left):
        return
    session_totals_rows_add(timed, untimed, _by_session(timed, untimed), sorted(left))
    if left:
        sessions_totals_recount(left)


def session_totals_rows(
    before: dict[int, TraceTotals],
    after: dict[int, TraceTotals],
    now: datetime,
    made: frozenset[int] = frozenset(),
) -> tuple[list[list], list[list], set[int]]:
    """session_totals_add's rows, one a trace (timed, untimed: see traces.sql), and the
    sessions traces left."""
    timed, untimed, left = [], [], set()
    ops = connection.ops
    received = ops.adapt_datetimefield_value(now)
    for key, new in after.items():
        old = before.get(key) or TraceTotals(session_id=None)
        if old.session_id and old.session_id != new.session_id:
            left.add(old.session_id)
        joined = old.session_id != new.session_id
        # A re-sent span changes nothing: no write, and the session's activity time stays.
        if not new.session_id or (not joined and old == new) or new.session_id in made:
            continue
        base = old if not joined else TraceTotals(session_id=None)
        row = [
            int(joined),
            new.error_count - base.error_count,
            new.input_tokens - base.input_tokens,
            new.output_tokens - base.output_tokens,
            ops.adapt_decimalfield_value(new.cost_usd - base.cost_usd, 14, 6),
            int(joined and new.held_out),
            received,
            received,
        ]
        task = new.task[:FIRST_TASK_CHARS]
        if new.started_at is None:
            untimed.append([*row, task, new.session_id])
            continue
        started = ops.adapt_datetimefield_value(new.started_at)
        latest = ops.adapt_datetimefield_value(new.ended_at or new.started_at)
        timed.append([*row, started, task, started, started, latest, latest, new.session_id])
    return timed, untimed, left


def _by_session(timed: list[list], untimed: list[list]) -> list[dict]:
    """The rows session_totals_add made, one a session: what applying them one after another
    (the timed ones first, as session_totals_rows_add_each does) adds, as one row's values.

    Sums add up; the earliest start and the latest time are the extremes. The first task is
    that of the last timed row with the earliest start (a later equal start replaces it, as
    `>=` does), or, with no timed row, the first untimed row's task that is not empty."""
    sessions: dict[int, dict] = {}
    for row in timed + untimed:
        session = sessions.setdefault(
            row[-1],
            {
                "id": row[-1],
                "trace_count": 0,
                "error_count": 0,
                "input_tokens": 0,
                "output_tokens": 0,
                "cost_usd": Decimal(0),
                "held_out_trace_count": 0,
                "received": row[6],
                "started": None,
                "started_task": "",
                "latest": None,
                "untimed_task": "",
            },
        )
        for index, name in enumerate(
            ("trace_count", "error_count", "input_tokens", "output_tokens")
        ):
            session[name] += row[index]
        session["cost_usd"] += Decimal(row[4])
        session["held_out_trace_count"] += row[5]
    for row in timed:
        session = sessions[row[-1]]
        started, task, latest = row[8], row[9], row[12]
        if session["started"] is None or started <= session["started"]:
            session["started"], session["started_task"] = started, task
        if session["latest"] is None or latest > session["latest"]:
            session["latest"] = latest
    for row in untimed:
        session = sessions[row[-1]]
        if not session["untimed_task"]:
            session["untimed_task"] = row[8]
    return sorted(sessions.values(), key=lambda session: session["id"])


def _aggregate(trace_model, expression, default=None):
    traces = trace_model.objects.filter(session=OuterRef("pk")).order_by().values("session")
    total = Subquery(traces.annotate(total=expression).values("total"))
    return total if default is None else Coalesce(total, default)


def sessions_totals_recount(session_ids: Iterable[int], models=(Session, Trace)) -> int:
    """Count the sessions' totals again from their traces; returns how many were updated.

    `models`: (Session, Trace) as a migration has them, for the backfill."""
    with transaction.atomic(savepoint=False):
        return _recount(session_ids, *models)


def _recount(session_ids: Iterable[int], session_model, trace_model) -> int:
    ids = _sessions_lock(session_ids, session_model)
    if not ids:
        return 0
    money = DecimalField(max_digits=14, decimal_places=6)
    first = (
        trace_model.objects.filter(session=OuterRef("pk"))
        .order_by(F("started_at").asc(nulls_last=True), "pk")
        .values_list(Substr("task", 1, FIRST_TASK_CHARS))[:1]
    )
    return session_model.objects.filter(pk__in=ids).update(
        trace_count=_aggregate(trace_model, Count("pk"), Value(0)),
        error_count=_aggregate(trace_model, Sum("error_count"), Value(0)),
        input_tokens=_aggregate(trace_model, Sum("input_tokens"), Value(0)),
        output_tokens=_aggregate(trace_model, Sum("output_tokens"), Value(0)),
        cost_usd=_aggregate(
            trace_model, Sum("cost_usd", output_field=money), Value(Decimal(0), money)
        ),
        held_out_trace_count=_aggregate(
            trace_model, Count("pk", filter=Q(held_out=True), output_field=IntegerField()), Value(0)
        ),
        first_started_at=_aggregate(trace_model, Min("started_at")),
        last_trace_at=_aggregate(trace_model, Max(Coalesce("ended_at", "started_at"))),
        first_task=Coalesce(Subquery(first), Value("")),
    )
