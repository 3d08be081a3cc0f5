"""Expiring a day of traces on PostgreSQL, spans partitioned by day: row by row (what retention
does for a day shared with a project that keeps traces longer) against dropping the day's
partition (what it does otherwise), both through traces.retention's and
traces.retention_days' own code, at two table sizes in one run.

For each size, fills evalsite's own tables with DAYS days of traces (TRACES_PER_DAY a day,
SPANS_PER_TRACE spans each, small JSON values; KEPT traces a day are golden examples' sources),
then
1. removes the oldest day by rows (traces.retention.project_traces_expire, batches of
   RETENTION_BATCH) and VACUUMs that day's partition, as autovacuum would;
2. expires the next day through traces.retention_days.spans_day_expire: kept traces' spans
   moved to today's partition, the others' traces deleted, the partition dropped.
Prints both times, the spans table's size per span (heap, TOAST, each index over all
partitions) and what that makes per month at a few ingest rates, with the load average.

    .venv/bin/python bench/retention.py [--days 10,20 --traces-per-day 1000 --spans-per-trace 100]
"""

import argparse
import os
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchdb import django_setup  # noqa: E402

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/evalsite_retention_bench"
KEPT = 10

SPANS_INSERT = """
INSERT INTO traces_span (trace_id, span_id, parent_span_id, name, kind, started_at, ended_at,
    duration_ms, input, output, attributes, status, error_message, tool_name, tool_call_id,
    model, input_tokens, output_tokens, cost_usd, position, component, trace_day)
SELECT t.id, lpad(to_hex(s), 16, '0'), CASE WHEN s = 0 THEN '' ELSE lpad('0', 16, '0') END,
    CASE WHEN s %% 2 = 1 THEN 'chat gpt-4.1' ELSE 'run_tests' END,
    CASE WHEN s = 0 THEN 'agent' WHEN s %% 2 = 1 THEN 'llm' ELSE 'tool' END,
    t.created_at + s * interval '500 ms', t.created_at + s * interval '500 ms' + interval '400 ms',
    400,
    jsonb_build_object('path', 'billing/invoice_' || s || '.py', 'args', jsonb_build_array('-q')),
    jsonb_build_object('stdout', 'collected 12 items ' || repeat('.', 120), 'exit_code', s %% 7),
    jsonb_build_object('gen_ai.request.model', 'gpt-4.1', 'agent.step_index', s),
    'ok', '', '', '', '', 1200, 80, 0, s, '', t.spans_day
FROM traces_trace t CROSS JOIN generate_series(0, %(spans)s - 1) s
WHERE t.project_id = %(project)s
"""


def bench_now() -> datetime:
    """Noon today (UTC): every filled day is whole and in the past."""
    return datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)


def clear() -> None:
    """Remove what an earlier run left: the bench project's traces and every past partition."""
    from django.db import connection

    from golden.models import GoldenExample
    from traces.models import Project, Trace
    from traces.partition_sql import span_partition_days
    from traces.retention import traces_delete
    from traces.span_partitions import span_partition_drop

    project = Project.objects.filter(slug="retention-bench").first()
    if project:
        GoldenExample.objects.filter(source_trace__project=project).delete()
        ids = list(Trace.objects.filter(project=project).values_list("pk", flat=True))
        for start in range(0, len(ids), 5000):
            traces_delete(ids[start : start + 5000])
        project.delete()
    today = bench_now().date()
    for day in span_partition_days():
        if day < today - timedelta(days=1):
            span_partition_drop(day)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM traces_span")


def fill(days: int, traces_per_day: int, spans_per_trace: int):
    """The project and its traces, received over `days` days before today, and their spans."""
    from django.db import connection

    from golden.models import GoldenExample
    from traces.models import Project, Trace
    from traces.span_partitions import span_partitions_ensure

    project = Project.objects.create(name="Retention bench", slug="retention-bench")
    now = bench_now()
    received = [now - timedelta(days=days - day, hours=1) for day in range(days)]
    traces = [
        Trace(
            project=project,
            external_id=f"{day:04d}{index:028x}",
            task="Migrate the billing module",
            source_format="otlp",
            span_count=spans_per_trace,
            spans_day=received[day].date(),
        )
        for day in range(days)
        for index in range(traces_per_day)
    ]
    Trace.objects.bulk_create(traces, batch_size=5000)
    span_partitions_ensure(at.date() for at in received)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE traces_trace SET created_at = spans_day + interval '11 hours' "
            "WHERE project_id = %s",
            [project.pk],
        )
        cursor.execute(SPANS_INSERT, {"spans": spans_per_trace, "project": project.pk})
        cursor.execute("ANALYZE traces_span")
        cursor.execute("ANALYZE traces_trace")
    kept = [
        GoldenExample(source_trace=trace, task=trace.task)
        for trace in Trace.objects.filter(project=project).order_by("pk")
        if int(trace.external_id[4:], 16) < KEPT
    ]
    GoldenExample.objects.bulk_create(kept)
    return project, now, [at.date() for at in received]


def sizes() -> dict:
    """Heap, TOAST and index bytes of the spans table over all its partitions."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT sum(pg_relation_size(relid)), sum(pg_total_relation_size(relid) "
            "- pg_relation_size(relid) - pg_indexes_size(relid)), sum(pg_indexes_size(relid)) "
            "FROM pg_partition_tree('traces_span') WHERE isleaf"
        )
        heap, toast, indexes = (int(size) for size in cursor.fetchone())
        cursor.execute("SELECT count(*) FROM traces_span")
        rows = cursor.fetchone()[0]
        cursor.execute(
            "SELECT x.indexrelid::regclass::text, (SELECT sum(pg_relation_size(relid)) "
            "FROM pg_partition_tree(x.indexrelid)) FROM pg_index x "
            "WHERE x.indrelid = 'traces_span'::regclass ORDER BY 2 DESC"
        )
        each = cursor.fetchall()
    return {"heap": heap, "toast": toast, "indexes": indexes, "rows": rows, "each": each}


def delete_by_rows(project, now, days: list) -> tuple[float, int, float]:
    """Seconds to remove the oldest day through traces.retention, spans removed, VACUUM s."""
    from django.db import connection

    from traces.models import Span
    from traces.partition_sql import partition_name
    from traces.retention import RETENTION_BATCH, project_traces_expire

    project.retention_days = len(days) - 1  # exactly the oldest day is past it
    project.save(update_fields=["retention_days"])
    before = Span.objects.count()
    began = time.perf_counter()
    while project_traces_expire(project, RETENTION_BATCH, now):
        pass
    deleted_s = time.perf_counter() - began
    removed = before - Span.objects.count()
    began = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(f"VACUUM {connection.ops.quote_name(partition_name(days[0]))}")
    return deleted_s, removed, time.perf_counter() - began


def partition_drop(project, now, days: list) -> tuple[float, float, int, int]:
    """Seconds to expire the second oldest day by dropping it, and of that from the DROP on (the
    drop's commit, then the day's traces deleted), spans dropped, traces moved."""
    from traces import retention_days
    from traces.models import Span, Trace
    from traces.retention_days import spans_day_expire

    drop = retention_days.span_partition_drop
    drop_began = []

    def timed_drop(day):
        drop_began.append(time.perf_counter())
        drop(day)

    retention_days.span_partition_drop = timed_drop

    project.retention_days = len(days) - 2
    project.save(update_fields=["retention_days"])
    day = days[1]
    spans = Span.objects.filter(trace_day=day).count()
    kept = Trace.objects.filter(spans_day=day, golden_examples__isnull=False).count()
    began = time.perf_counter()
    removed = spans_day_expire(day, now)
    ended = time.perf_counter()
    dropped_s, locked_s = ended - began, ended - drop_began[0]
    retention_days.span_partition_drop = drop
    if removed is None:
        raise RuntimeError(f"the partition of {day} was not dropped")
    moved = Trace.objects.filter(spans_day=now.date(), project=project).count()
    assert moved == kept, (moved, kept)
    return dropped_s, locked_s, spans, moved


def measure(days: int, traces_per_day: int, spans_per_trace: int) -> None:
    total = days * traces_per_day * spans_per_trace
    print(f"\n== {total:,} spans over {days} days; load average {os.getloadavg()[0]:.2f}")
    clear()
    began = time.perf_counter()
    project, now, day_list = fill(days, traces_per_day, spans_per_trace)
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
        print(f"  index {name}: {int(size) / rows:.0f} B/span")
    for per_day in (100_000, 1_000_000, 10_000_000):
        print(f"  {per_day:>10,} spans/day -> {per_day * 30 * per_span / 1e9:7.1f} GB a month")
    deleted_s, removed, vacuum_s = delete_by_rows(project, now, day_list)
    print(
        f"delete by rows (traces.retention): {removed:,} spans in {deleted_s:.2f} s "
        f"({removed / deleted_s:,.0f} spans/s), then VACUUM of the partition {vacuum_s:.2f} s"
    )
    dropped_s, locked_s, dropped, moved = partition_drop(project, now, day_list)
    print(
        f"partition drop (traces.retention_days): {dropped:,} spans in {dropped_s:.2f} s, "
        f"{locked_s * 1000:.0f} ms of it from the DROP on (its commit, then the day's traces "
        f"deleted by batches); {moved} kept traces' spans moved out first"
    )
    print(f"drop is {(deleted_s + vacuum_s) / dropped_s:,.1f}x faster than delete + VACUUM")
    print(f"load average {os.getloadavg()[0]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", default="10,20", help="data sizes, in days, comma separated")
    parser.add_argument("--traces-per-day", type=int, default=1000)
    parser.add_argument("--spans-per-trace", type=int, default=100)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB))
    parser.add_argument("--var-dir", default="/tmp/evalsite-retention-bench")
    args = parser.parse_args()
    django_setup(args.database_url, args.var_dir)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    for days in (int(value) for value in args.days.split(",")):
        measure(days, args.traces_per_day, args.spans_per_trace)
    clear()


if __name__ == "__main__":
    main()
