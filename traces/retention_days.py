"""Expiring a whole day of traces on PostgreSQL by dropping its spans partition.

A day's partition holds the spans of the traces received that day (traces.span_partitions).
Once the whole day is past the retention time of every project with a trace in it, the traces
something still relies on (traces.retention.traces_expirable says which) have their spans moved
to today's partition, the other traces are deleted with what they own (but not their spans), and
the partition is dropped last: one transaction a day, with the day's traces locked from the start,
so nothing can take hold of a trace whose spans are going, and a worker that dies leaves the day
whole for the next run. A day with a project keeping its traces longer (or for ever) is left to
traces.retention's row by row batches.
"""

import logging
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta

from django.db import OperationalError, transaction
from django.utils import timezone
from psycopg.errors import LockNotAvailable

from traces.models import Project, Trace
from traces.partition_sql import span_partition_days, spans_partitioned
from traces.retention import RETENTION_BATCH, retention_cutoff, traces_delete, traces_expirable
from traces.span_partitions import span_partition_drop, spans_day_move

logger = logging.getLogger(__name__)

# Trace ids per delete statement, as the row batches take them.
DELETE_CHUNK = RETENTION_BATCH


def _day_end(day: date) -> datetime:
    return datetime.combine(day + timedelta(days=1), datetime.min.time(), tzinfo=UTC)


def _day_expired(day: date, retentions: list[int | None], now: datetime) -> bool:
    """Whether all of `day` is past the retention time of each project with traces in it."""
    return all(
        days is not None and _day_end(day) <= now - timedelta(days=days) for days in retentions
    )


def spans_days_expirable(now: datetime | None = None) -> list[date]:
    """Days whose partition can be dropped, oldest first. A day without traces counts once it
    is two days old: by then no ingest can still be writing to it."""
    if not spans_partitioned():
        return []
    now = now or timezone.now()
    today = now.astimezone(UTC).date()
    days = [day for day in span_partition_days() if day < today - timedelta(days=1)]
    retentions: dict[date, list[int | None]] = defaultdict(list)
    rows = (
        Trace.objects.filter(spans_day__in=days)
        .values_list("spans_day", "project__retention_days")
        .distinct()
    )
    for day, retention_days in rows:
        retentions[day].append(retention_days)
    return [day for day in days if _day_expired(day, retentions[day], now)]


class SpansTableBusy(Exception):
    """The spans table stayed locked by readers past the drop's lock timeout; try later."""


def spans_day_expire(day: date, now: datetime | None = None) -> int | None:
    """Drop `day`'s partition, moving out the spans of traces that must stay; returns the
    traces deleted, or None when the day is no longer due. Raises SpansTableBusy."""
    now = now or timezone.now()
    today = now.astimezone(UTC).date()
    try:
        with transaction.atomic():
            # Locked, so a review item or trial created meanwhile waits and then fails its key.
            day_traces = list(
                Trace.objects.filter(spans_day=day)
                .select_for_update(of=("self",))
                .order_by("pk")
                .values_list("pk", "project_id")
            )
            projects = Project.objects.in_bulk({project_id for _, project_id in day_traces})
            if not _day_expired(day, [p.retention_days for p in projects.values()], now):
                return None
            expired: set[int] = set()
            for project in projects.values():
                expired.update(
                    traces_expirable(project, retention_cutoff(project, now))
                    .filter(spans_day=day)
                    .values_list("pk", flat=True)
                )
            kept = sorted({pk for pk, _ in day_traces} - expired)
            if kept:
                spans_day_move(kept, day, today)
            ordered = sorted(expired)
            for start in range(0, len(ordered), DELETE_CHUNK):
                traces_delete(ordered[start : start + DELETE_CHUNK], span_rows=False)
            # From here to commit the spans table is locked for everyone, so the drop is last.
            span_partition_drop(day)
    except OperationalError as error:
        if not isinstance(error.__cause__, LockNotAvailable):
            raise
        raise SpansTableBusy(day) from error
    logger.info(
        "spans partition of %s dropped: %s traces gone, %s kept", day, len(expired), len(kept)
    )
    return len(expired)


def spans_day_expire_oldest(now: datetime | None = None) -> int | None:
    """Drop the oldest expirable day; returns its traces deleted, None when no day is due.
    Raises SpansTableBusy."""
    days = spans_days_expirable(now)
    return spans_day_expire(days[0], now) if days else None
