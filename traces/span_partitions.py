"""The spans table on PostgreSQL: partitioned by range of Span.trace_day, one partition per UTC day.

A span's day is its trace's `spans_day`, the day the trace was received, so a re-sent or late
span lands on the row already stored and a whole trace lives in one partition; retention, which
counts from when a trace was received, can then drop a day's partition instead of deleting its
rows (traces.retention_days). Partitions are created ahead of time (span_partitions_create_ahead,
run hourly) and, for a day that has none, by ingest before it writes (span_partitions_ensure);
there is no default partition, so a row with no partition fails loudly instead of piling up
where retention cannot drop it. SQLite keeps one plain table. The SQL is in
traces/partition_sql.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta

from django.db import transaction

from traces.models import Span, Trace, utc_today
from traces.partition_sql import (
    PARTITION_DAYS_AHEAD,
    partition_drop,
    partitions_create,
    spans_partitioned,
)

DROP_LOCK_TIMEOUT_MS = 5000
# Days whose partition this process saw committed; filled after commit only, so a creation
# rolled back (a failed request, a test) is never remembered.
_known_days: set[date] = set()


def span_partitions_ensure(days: Iterable[date]) -> int:
    """Create the missing partitions of these days; returns how many were created.

    Creating a partition locks the spans table until the caller's transaction ends, so ingest
    only does it for a day the hourly task has not prepared.
    """
    missing = sorted(set(days) - _known_days)
    if not missing:
        return 0
    created = partitions_create(missing)
    transaction.on_commit(lambda: _known_days.update(missing))
    return len(created)


def span_partitions_create_ahead(today: date | None = None) -> int:
    """Partitions from yesterday to PARTITION_DAYS_AHEAD days on; returns how many were new."""
    if not spans_partitioned():
        return 0
    today = today or utc_today()
    days = [today + timedelta(days=offset) for offset in range(-1, PARTITION_DAYS_AHEAD + 1)]
    return span_partitions_ensure(days)


def span_partition_drop(day: date) -> None:
    """Drop a day's partition, in the caller's transaction. Waits at most DROP_LOCK_TIMEOUT_MS
    for readers of the spans table, so a long query delays retention instead of queueing ingest
    behind the drop."""
    partition_drop(day, DROP_LOCK_TIMEOUT_MS)
    transaction.on_commit(lambda: _known_days.discard(day))


def spans_day_move(trace_ids: list[int], from_day: date, to_day: date) -> None:
    """Move the traces' spans (rows of `from_day`) to `to_day`'s partition, and the traces with
    them, so re-sent spans still find their rows."""
    span_partitions_ensure([to_day])
    Span.objects.filter(trace_id__in=trace_ids, trace_day=from_day).update(trace_day=to_day)
    Trace.objects.filter(pk__in=trace_ids).update(spans_day=to_day)
