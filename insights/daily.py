"""Per-day partial aggregates for the overview, so a rebuild reads only the days that changed.

A chart that sums rows over time reads its rows through `daily_rows`: each day's grouped rows
are kept in the insights cache (one entry per part), and a rebuild computes again from the
database only
- the days since the previous rebuild began (less a margin for transactions still open then),
- the days of rows written since then (ids above the stored watermark of each source table),
  such as a span that arrives for a trace of last week, or a red flag raised on it;
- the days of rows changed in place since then, for a part whose rows carry the time of the
  change (an annotation undone, a trace's red flags checked again);
- and every day once per `INSIGHTS_FULL_REBUILD_SECONDS`, or when the cache lost the entry,
  which takes in edits to old rows (a verdict re-scored in place weeks later).
So a rebuild costs what arrived since the last one, not the whole history.

Runs inside the overview build's transaction (`overview_build_session`), so every part sees
the same snapshot of the database.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from django.db.models import Max, Model, QuerySet
from django.db.models.functions import TruncDate, TruncDay
from django.utils import timezone

# Rows committed after a rebuild began, but stamped just before it, belong to these days.
LATE_COMMIT_MARGIN = dt.timedelta(minutes=10)
STATE_VERSION = 1


@dataclass(frozen=True)
class DailyPart:
    """One grouped query of a chart, cut into days.

    `rows(start, end)` returns the grouped rows whose day lies in [start, end) (both None
    for all of history), each with a "day" (a date). `sources` name each table whose new
    rows change a day, and the lookup from that table to the timestamp deciding the day.
    `changed(since)`, when given, returns the days of rows changed in place since then.
    """

    key: str
    rows: Callable[[dt.datetime | None, dt.datetime | None], Iterable[dict]]
    sources: tuple[tuple[type[Model], str], ...]
    changed: Callable[[dt.datetime], Iterable] | None = None


def _day_start(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time.min, tzinfo=timezone.get_current_timezone())


def _today() -> dt.date:
    return timezone.localdate()


def _runs(days: set[dt.date]) -> list[tuple[dt.date, dt.date]]:
    """Sorted days as contiguous runs [first, last], so each run is one range query."""
    runs: list[tuple[dt.date, dt.date]] = []
    for day in sorted(days):
        if runs and day == runs[-1][1] + dt.timedelta(days=1):
            runs[-1] = (runs[-1][0], day)
        else:
            runs.append((day, day))
    return runs


class DailyStore:
    """Where the days live: one entry per part in the overview's cache, under this database."""

    def __init__(self, cache_call, prefix: str):
        self._call = cache_call
        self._prefix = f"{prefix}:{connection.settings_dict['NAME']}"

    def key(self, part: DailyPart) -> str:
        return f"{self._prefix}:{part.key}"

    def get(self, part: DailyPart) -> dict | None:
        return self._call("get", self.key(part))

    def set(self, part: DailyPart, entry: dict) -> None:
        self._call("set", self.key(part), entry, timeout=None)

    def delete(self, part: DailyPart) -> None:
        self._call("delete", self.key(part))

    def value_get(self, name: str):
        """A value a chart keeps between rebuilds beside its days (None when there is none)."""
        return self._call("get", f"{self._prefix}:{name}")

    def value_set(self, name: str, value) -> None:
        self._call("set", f"{self._prefix}:{name}", value, timeout=None)


def day_of(value) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return timezone.localtime(value).date() if timezone.is_aware(value) else value.date()
    return value


def _grouped_by_day(rows: Iterable[dict]) -> dict[dt.date, list[dict]]:
    """Rows by their day; each row is kept as the query gave it."""
    by_day: dict[dt.date, list[dict]] = {}
    for row in rows:
        day = day_of(row["day"])
        if day is not None:  # no timestamp, no day (a trace whose start never arrived)
            by_day.setdefault(day, []).append(row)
    return by_day


def _watermarks(part: DailyPart) -> dict[str, int]:
    return {
        model._meta.label: model.objects.aggregate(top=Max("pk"))["top"] or 0
        for model, _ in part.sources
    }


def _days_written_since(
    part: DailyPart, marks: dict[str, int], now_marks: dict[str, int]
) -> set[dt.date]:
    """Days of rows added to any source since the watermarks (read through the pk index);
    a table whose watermark did not move has no such rows and is not asked."""
    days: set[dt.date] = set()
    for model, lookup in part.sources:
        mark = marks.get(model._meta.label, 0)
        if now_marks[model._meta.label] > mark:
            days |= days_of(model.objects.filter(pk__gt=mark), lookup)
    return days


def days_of(rows, lookup: str) -> set[dt.date]:
    """The distinct days of a timestamp reached from the queryset's rows, as the parts cut them."""
    stamped = rows.exclude(**{f"{lookup}__isnull": True})
    return set(
        stamped.annotate(day_of=TruncDate(lookup)).values_list("day_of", flat=True).distinct()
    )


def daily_rows(
    part: DailyPart, store: DailyStore | None, since: dt.date | None = None
) -> list[dict]:
    """Every row of the part from `since` (None: all history) to today, days in order.

    Without a store every day is read from the database, as a one-off computation does."""
    if store is None:
        days = _grouped_by_day(part.rows(_day_start(since) if since else None, None))
        return [row for day in sorted(days) if since is None or day >= since for row in days[day]]
    now = timezone.now()
    today = _today()
    entry = store.get(part)
    full_every = dt.timedelta(seconds=settings.INSIGHTS_FULL_REBUILD_SECONDS)
    if (
        not entry
        or entry.get("version") != STATE_VERSION
        or now - entry["full_at"] > full_every
        or (since is None and entry["since"] is not None)
        or (since is not None and entry["since"] is not None and since < entry["since"])
    ):
        return _rebuild_all(part, store, since, now)

    marks = _watermarks(part)
    dirty = _days_written_since(part, entry["marks"], marks)
    if part.changed is not None:
        dirty.update(day_of(day) for day in part.changed(entry["built_from"] - LATE_COMMIT_MARGIN))
    first_recent = timezone.localtime(entry["built_from"] - LATE_COMMIT_MARGIN).date()
    dirty.update(
        first_recent + dt.timedelta(days=n) for n in range((today - first_recent).days + 1)
    )
    dirty = {day for day in dirty if (since is None or day >= since) and day <= today}
    days = {
        day: rows
        for day, rows in entry["days"].items()
        if day not in dirty and (since is None or day >= since)
    }
    for first, last in _runs(dirty):
        end = _day_start(last + dt.timedelta(days=1))
        days.update(_grouped_by_day(part.rows(_day_start(first), end)))
    store.set(part, {**entry, "built_from": now, "marks": marks, "days": days})
    return [row for day in sorted(days) for row in days[day]]


def _rebuild_all(part: DailyPart, store: DailyStore, since: dt.date | None, now) -> list[dict]:
    """Every day from the database, as the first build and the periodic full one do."""
    marks = _watermarks(part)
    start = _day_start(since) if since is not None else None
    days = _grouped_by_day(part.rows(start, None))
    days = {day: rows for day, rows in days.items() if since is None or day >= since}
    entry = {
        "version": STATE_VERSION,
        "full_at": now,
        "built_from": now,
        "since": since,
        "marks": marks,
        "days": days,
    }
    store.set(part, entry)
    return [row for day in sorted(days) for row in days[day]]


def daily_forget(store: DailyStore, parts: Iterable[DailyPart]) -> None:
    """Drop what is known of the parts' days; the next read rebuilds them all."""
    for part in parts:
        store.delete(part)


def day_range_filter(lookup: str, start, end) -> dict:
    """Filter kwargs for a timestamp within [start, end); None leaves that side open."""
    bounds = {}
    if start is not None:
        bounds[f"{lookup}__gte"] = start
    if end is not None:
        bounds[f"{lookup}__lt"] = end
    return bounds


def within_days(queryset: QuerySet, lookup: str, start, end) -> QuerySet:
    """The rows of `queryset` whose timestamp `lookup` lies in [start, end), each with its "day"
    by that same timestamp, as a DailyPart's rows must be."""
    return queryset.filter(**day_range_filter(lookup, start, end)).annotate(day=TruncDay(lookup))


def week_of(day: dt.date) -> dt.date:
    """The Monday starting the day's week, as TruncWeek gives it."""
    return day - dt.timedelta(days=day.weekday())
