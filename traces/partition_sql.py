"""The SQL of the day-partitioned spans table on PostgreSQL (traces/span_partitions.py says
why it is partitioned and when partitions are made): catalog reads, partition DDL, storage
settings and the one-time rebuild. Names come from the models and from dates, never from input.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, timedelta

from django.db import connection, transaction

from traces.models import Span, Trace, utc_today

# Partitions made ahead by the hourly task: a week of restarts or missed beats is covered.
PARTITION_DAYS_AHEAD = 7
# Taken (transaction-scoped) by whoever creates a partition: two ingests that see the first span
# of a day at once would otherwise race in the catalog.
_CREATE_LOCK = 0x5350414E  # "SPAN"
_DAY_FORMAT = "%Y%m%d"
# A span row up to a page's size stays whole and uncompressed: PostgreSQL's default (2 kB)
# made it compress about a third of tool spans, agent spans' JSON is mostly text, and pglz
# on every such row cost more CPU than storing the span itself. Larger rows are still toasted.
SPAN_STORAGE = "toast_tuple_target = 8160"
# Rows larger than that (LLM spans carrying whole conversations) are compressed with lz4: a
# quarter of pglz's CPU a row for slightly larger rows (`bench/ingest.py --history`, RESULTS.md).
SPAN_TEXT_FIELDS = ("input", "output", "attributes", "error_message")


def spans_partitioned() -> bool:
    """Whether the spans table is partitioned: on PostgreSQL, always (as migrated)."""
    return connection.vendor == "postgresql"


def _quote(name: str) -> str:
    return connection.ops.quote_name(name)


def partition_name(day: date) -> str:
    return f"{Span._meta.db_table}_p{day:{_DAY_FORMAT}}"


def _bounds(day: date) -> str:
    # Dates format themselves; nothing from input reaches the statement.
    return f"FROM ('{day.isoformat()}') TO ('{(day + timedelta(days=1)).isoformat()}')"


def span_partition_days() -> list[date]:
    """The days that have a partition, oldest first."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            "WHERE i.inhparent = %s::regclass",
            [Span._meta.db_table],
        )
        names = [row[0] for row in cursor.fetchall()]
    prefix = partition_name(date.min).removesuffix(f"{date.min:{_DAY_FORMAT}}")
    return sorted(
        datetime.strptime(name.removeprefix(prefix), _DAY_FORMAT).date()  # noqa: DTZ007 - a date
        for name in names
    )


def partitions_create(days: Iterable[date]) -> list[date]:
    """Create the partitions of these days that do not exist, in one transaction; returns the
    days created."""
    created = []
    with transaction.atomic(), connection.cursor() as cursor:
        for day in days:
            name = partition_name(day)
            cursor.execute("SELECT to_regclass(%s) IS NULL", [name])
            if not cursor.fetchone()[0]:
                continue
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_CREATE_LOCK])
            cursor.execute(
                f"CREATE TABLE IF NOT EXISTS {_quote(name)} "
                f"PARTITION OF {_quote(Span._meta.db_table)} FOR VALUES {_bounds(day)} "
                f"WITH ({SPAN_STORAGE})"
            )
            created.append(day)
    return created


def span_text_compression_set(method: str) -> bool:
    """Compress the spans table's text columns with `method` ("lz4" or "pglz"), on the table
    and each partition (a new partition takes the table's); returns False, changing nothing,
    when this PostgreSQL was built without it."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT %s = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'",
            [method],
        )
        if not cursor.fetchone()[0]:
            return False
        table = Span._meta.db_table
        cursor.execute(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            "WHERE i.inhparent = %s::regclass ORDER BY c.relname",
            [table],
        )
        tables = [table, *(row[0] for row in cursor.fetchall())]
        # The method is one of the server's own names, checked above; columns come from the model.
        alters = ", ".join(
            f"ALTER COLUMN {_quote(Span._meta.get_field(name).column)} SET COMPRESSION {method}"
            for name in SPAN_TEXT_FIELDS
        )
        for name in tables:
            cursor.execute(f"ALTER TABLE {_quote(name)} {alters}")
    return True


def partition_drop(day: date, lock_timeout_ms: int) -> None:
    """Drop a day's partition in the caller's transaction, waiting at most `lock_timeout_ms`
    for the spans table's lock."""
    with connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL lock_timeout = {int(lock_timeout_ms)}")
        cursor.execute(f"DROP TABLE {_quote(partition_name(day))}")
        cursor.execute("SET LOCAL lock_timeout = DEFAULT")


def spans_table_convert(partitioned: bool) -> None:
    """Rebuild the spans table, rows, indexes and constraints kept, partitioned by day (or back
    to one plain table), in the caller's transaction: a new table is filled, the old one dropped
    and the new one renamed. A partitioned table's primary key holds the day."""
    table = Span._meta.db_table
    new = f"{table}_rebuilt"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT i.relname, pg_get_indexdef(i.oid), c.contype, pg_get_constraintdef(c.oid) "
            "FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid "
            "LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.conrelid = x.indrelid "
            "WHERE x.indrelid = %s::regclass ORDER BY i.relname",
            [table],
        )
        indexes = cursor.fetchall()
        cursor.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 "
            "AND NOT attisdropped ORDER BY attnum",
            [table],
        )
        columns = [row[0] for row in cursor.fetchall()]
        cursor.execute("SELECT count(*) FROM " + _quote(table))  # noqa: S608 - model's table
        rows = cursor.fetchone()[0]
        cursor.execute(
            f"CREATE TABLE {_quote(new)} (LIKE {_quote(table)} INCLUDING DEFAULTS "
            "INCLUDING IDENTITY INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMPRESSION)"
            + (" PARTITION BY RANGE (trace_day)" if partitioned else f" WITH ({SPAN_STORAGE})")
        )
        if partitioned:
            cursor.execute(
                f"SELECT DISTINCT {_quote(Trace._meta.get_field('spans_day').column)} "  # noqa: S608
                f"FROM {_quote(Trace._meta.db_table)}"
            )
            today = utc_today()
            days = {row[0] for row in cursor.fetchall()}
            days |= {today + timedelta(days=n) for n in range(-1, PARTITION_DAYS_AHEAD + 1)}
            for day in sorted(days):
                cursor.execute(
                    f"CREATE TABLE {_quote(partition_name(day))} "
                    f"PARTITION OF {_quote(new)} FOR VALUES {_bounds(day)} "
                    f"WITH ({SPAN_STORAGE})"
                )
        names = ", ".join(_quote(column) for column in columns)
        # Each span takes its trace's day, so a trace's spans share one partition.
        values = ", ".join(
            "t.spans_day" if column == "trace_day" and partitioned else f"s.{_quote(column)}"
            for column in columns
        )
        cursor.execute(
            f"INSERT INTO {_quote(new)} ({names}) OVERRIDING SYSTEM VALUE "  # noqa: S608
            f"SELECT {values} FROM {_quote(table)} s "
            f"LEFT JOIN {_quote(Trace._meta.db_table)} t ON t.id = s.trace_id"
        )
        if cursor.rowcount != rows:
            raise RuntimeError(f"{table}: {rows} rows, {cursor.rowcount} copied")
        cursor.execute(
            "SELECT relname FROM pg_class WHERE oid = pg_get_serial_sequence(%s, 'id')::regclass",
            [table],
        )
        sequence_name = cursor.fetchone()[0]
        # Without a foreign key to it (Span's model says why), the old table drops alone.
        cursor.execute(f"DROP TABLE {_quote(table)}")
        cursor.execute(f"ALTER TABLE {_quote(new)} RENAME TO {_quote(table)}")
        cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
        sequence = cursor.fetchone()[0]
        cursor.execute(
            f"SELECT setval(%s, COALESCE(max(id), 0) + 1, false) FROM {_quote(table)}",  # noqa: S608
            [sequence],
        )
        cursor.execute(f"ALTER SEQUENCE {sequence} RENAME TO {_quote(sequence_name)}")
        primary_key = "(id, trace_day)" if partitioned else "(id)"
        for name, definition, kind, constraint in indexes:
            if kind == "p":
                cursor.execute(
                    f"ALTER TABLE {_quote(table)} ADD CONSTRAINT {_quote(name)} "
                    f"PRIMARY KEY {primary_key}"
                )
            elif kind == "u":
                cursor.execute(
                    f"ALTER TABLE {_quote(table)} ADD CONSTRAINT {_quote(name)} {constraint}"
                )
            else:
                # A partitioned table's definitions read ON ONLY; the rebuilt one wants them whole.
                cursor.execute(definition.replace(" ON ONLY ", " ON ", 1))
