"""Expiring a day of traces: deleting rows (what retention does today) against dropping a
partition of a spans table partitioned by day, on 2M spans, on PostgreSQL.

Fills evalsite's own tables with DAYS days of traces (TRACES_PER_DAY a day, SPANS_PER_TRACE
spans each, small JSON values), then
1. removes the oldest day through traces.retention (batches of RETENTION_BATCH traces, spans
   deleted by rows) and VACUUMs the spans table, as a server would;
2. copies the same spans into a table partitioned by the trace's day and drops the oldest
   day's partition.
Prints both times, the spans table's measured size per span (heap, TOAST, each index) and what
that makes per month at a few ingest rates, with the load average.

    .venv/bin/python bench/retention.py [--days 20 --traces-per-day 1000 --spans-per-trace 100]
"""

import argparse
import os
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchdb import database_ensure, django_setup  # noqa: E402

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/evalsite_retention_bench"

SPANS_INSERT = """
INSERT INTO traces_span (trace_id, span_id, parent_span_id, name, kind, started_at, ended_at,
    duration_ms, input, output, attributes, status, error_message, tool_name, tool_call_id,
    model, input_tokens, output_tokens, cost_usd, position, component)
SELECT t.id, lpad(to_hex(s), 16, '0'), CASE WHEN s = 0 THEN '' ELSE lpad('0', 16, '0') END,
    CASE WHEN s %% 2 = 1 THEN 'chat gpt-4.1' ELSE 'run_tests' END,
    CASE WHEN s = 0 THEN 'agent' WHEN s %% 2 = 1 THEN 'llm' ELSE 'tool' END,
    t.created_at + s * interval '500 ms', t.created_at + s * interval '500 ms' + interval '400 ms',
    400,
    jsonb_build_object('path', 'billing/invoice_' || s || '.py', 'args', jsonb_build_array('-q')),
    jsonb_build_object('stdout', 'collected 12 items ' || repeat('.', 120), 'exit_code', s %% 7),
    jsonb_build_object('gen_ai.request.model', 'gpt-4.1', 'agent.step_index', s),
    'ok', '', '', '', '', 1200, 80, 0, s, ''
FROM traces_trace t CROSS JOIN generate_series(0, %(spans)s - 1) s
WHERE t.project_id = %(project)s
"""

PARTITIONED = """
DROP TABLE IF EXISTS bench_span_by_day;
CREATE TABLE bench_span_by_day (LIKE traces_span INCLUDING DEFAULTS,
    trace_day date NOT NULL) PARTITION BY RANGE (trace_day);
"""


def fill(days: int, traces_per_day: int, spans_per_trace: int):
    """The project and its traces, created_at spread over `days` days, and their spans."""
    from django.db import connection
    from django.utils import timezone

    from traces.models import Project, Trace

    Project.objects.filter(slug="retention-bench").delete()
    project = Project.objects.create(name="Retention bench", slug="retention-bench")
    now = timezone.now()
    traces = [
        Trace(
            project=project,
            external_id=f"{day:04d}{index:028x}",
            task="Migrate the billing module",
            source_format="otlp",
            span_count=spans_per_trace,
        )
        for day in range(days)
        for index in range(traces_per_day)
    ]
    Trace.objects.bulk_create(traces, batch_size=5000)
    with connection.cursor() as cursor:
        # Day d is (days - 1 - d) days and an hour old: day 0 is the oldest.
        cursor.execute(
            "UPDATE traces_trace SET created_at = %s - (%s - 1 - substr(external_id, 1, 4)::int)"
            " * interval '1 day' - interval '1 hour' WHERE project_id = %s",
            [now, days, project.pk],
        )
        cursor.execute(SPANS_INSERT, {"spans": spans_per_trace, "project": project.pk})
        cursor.execute("ANALYZE traces_span")
        cursor.execute("ANALYZE traces_trace")
    return project, now


def sizes() -> dict:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_relation_size('traces_span'), "
            "pg_total_relation_size('traces_span') - pg_relation_size('traces_span') "
            "- pg_indexes_size('traces_span'), pg_indexes_size('traces_span'), "
            "(SELECT count(*) FROM traces_span)"
        )
        heap, toast, indexes, rows = cursor.fetchone()
        cursor.execute(
            "SELECT indexrelid::regclass::text, pg_relation_size(indexrelid) FROM pg_index "
            "WHERE indrelid = 'traces_span'::regclass ORDER BY 2 DESC"
        )
        each = cursor.fetchall()
    return {"heap": heap, "toast": toast, "indexes": indexes, "rows": rows, "each": each}


def delete_by_rows(project, now, days: int) -> tuple[float, int, float]:
    """Seconds to remove the oldest day through traces.retention, spans removed, VACUUM s."""
    from django.db import connection

    from traces.models import Span
    from traces.retention import RETENTION_BATCH, project_traces_expire

    project.retention_days = days - 1  # exactly the oldest day is past it
    project.save(update_fields=["retention_days"])
    before = Span.objects.count()
    began = time.perf_counter()
    while project_traces_expire(project, RETENTION_BATCH, now):
        pass
    deleted_s = time.perf_counter() - began
    removed = before - Span.objects.count()
    began = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM traces_span")
    return deleted_s, removed, time.perf_counter() - began


def partition_drop(project, days: int) -> tuple[float, int, float]:
    """Seconds to copy the spans into day partitions (setup), rows in the oldest, drop seconds."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(PARTITIONED)
        cursor.execute(
            "SELECT DISTINCT created_at::date FROM traces_trace WHERE project_id = %s ORDER BY 1",
            [project.pk],
        )
        day_list = [row[0] for row in cursor.fetchall()]
        for day in day_list:
            cursor.execute(
                f"CREATE TABLE bench_span_day_{day:%Y%m%d} PARTITION OF bench_span_by_day "
                f"FOR VALUES FROM ('{day}') TO ('{day + timedelta(days=1)}')"
            )
        cursor.execute("CREATE INDEX ON bench_span_by_day (trace_id, position)")
        cursor.execute("CREATE UNIQUE INDEX ON bench_span_by_day (trace_id, span_id, trace_day)")
        began = time.perf_counter()
        cursor.execute(
            "INSERT INTO bench_span_by_day SELECT s.*, t.created_at::date FROM traces_span s "
            "JOIN traces_trace t ON t.id = s.trace_id WHERE t.project_id = %s",
            [project.pk],
        )
        copied = time.perf_counter() - began
        oldest = f"bench_span_day_{day_list[0]:%Y%m%d}"
        cursor.execute(f"SELECT count(*) FROM {oldest}")  # noqa: S608 - our own table name
        rows = cursor.fetchone()[0]
        began = time.perf_counter()
        cursor.execute(f"ALTER TABLE bench_span_by_day DETACH PARTITION {oldest}")
        cursor.execute(f"DROP TABLE {oldest}")
        dropped = time.perf_counter() - began
        cursor.execute("DROP TABLE bench_span_by_day")
    return copied, rows, dropped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=20)
    parser.add_argument("--traces-per-day", type=int, default=1000)
    parser.add_argument("--spans-per-trace", type=int, default=100)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB))
    parser.add_argument("--var-dir", default="/tmp/evalsite-retention-bench")
    args = parser.parse_args()
    database_ensure(args.database_url)
    django_setup(args.database_url, args.var_dir)
    from django.db import connection

    total = args.days * args.traces_per_day * args.spans_per_trace
    print(
        f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; filling {total:,} spans"
    )
    began = time.perf_counter()
    project, now = fill(args.days, args.traces_per_day, args.spans_per_trace)
    print(f"filled in {time.perf_counter() - began:.0f} s")
    measured = sizes()
    rows = measured["rows"]
    per_span = (measured["heap"] + measured["toast"] + measured["indexes"]) / rows
    print(
        f"spans table: {rows:,} rows, heap {measured['heap'] / rows:.0f} B/span, TOAST "
        f"{measured['toast'] / rows:.0f} B/span, indexes {measured['indexes'] / rows:.0f} B/span "
        f"(total {per_span:.0f} B/span)"
    )
    for name, size in measured["each"]:
        print(f"  index {name}: {size / rows:.0f} B/span")
    for per_day in (100_000, 1_000_000, 10_000_000):
        print(f"  {per_day:>10,} spans/day -> {per_day * 30 * per_span / 1e9:7.1f} GB a month")
    # The partitioned copy first, so both run on the same full data set.
    copied, part_rows, dropped = partition_drop(project, args.days)
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(
        f"partition drop: {part_rows:,} spans (oldest day) dropped in {dropped * 1000:.1f} ms "
        f"(copying {rows:,} spans into day partitions took {copied:.0f} s)"
    )
    deleted_s, removed, vacuum_s = delete_by_rows(project, now, args.days)
    print(
        f"delete by rows (traces.retention): {removed:,} spans in {deleted_s:.1f} s "
        f"({removed / deleted_s:,.0f} spans/s), then VACUUM {vacuum_s:.1f} s"
    )
    print(f"drop is {(deleted_s + vacuum_s) / dropped:,.0f}x faster than delete + VACUUM")
    print(f"load average {os.getloadavg()[0]:.2f}")
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM traces_span WHERE trace_id IN "
            "(SELECT id FROM traces_trace WHERE project_id = %s)",
            [project.pk],
        )
    project.delete()


if __name__ == "__main__":
    main()
