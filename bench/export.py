"""Trace export: time and memory for 10,000 and 100,000 traces, on PostgreSQL.

Fills its own database with traces of 6 spans each (once; later runs reuse them), then streams
the JSONL and CSV exports exactly as GET /api/export/traces/ does and prints, per size: seconds,
traces per second, bytes, and the process's resident memory growth while streaming. Flat
memory means the growth at 100,000 is no larger than at 10,000.

    .venv/bin/python bench/export.py [--sizes 10000 100000]
"""

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchdb import django_setup  # noqa: E402

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/evalsite_export_bench"
SPANS_PER_TRACE = 6


def rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def fill(total: int) -> None:
    """Top the bench project up to `total` traces, in batches."""
    from datetime import timedelta

    from django.utils import timezone

    from traces.models import Project, Span, SpanKind, Trace

    project, _ = Project.objects.get_or_create(slug="export-bench", defaults={"name": "Export"})
    have = Trace.objects.filter(project=project).count()
    start = timezone.now() - timedelta(days=30)
    for offset in range(have, total, 2000):
        batch = range(offset, min(offset + 2000, total))
        traces = Trace.objects.bulk_create(
            Trace(
                project=project,
                external_id=f"{n:032x}",
                task=f"Move booking B-{n} to the 14th and confirm by email",
                final_answer=f"Booking B-{n} now starts on the 14th; confirmation sent.",
                agent_name="booking-agent",
                agent_version="2.3.1",
                started_at=start + timedelta(seconds=n),
                ended_at=start + timedelta(seconds=n + 9),
                span_count=SPANS_PER_TRACE,
            )
            for n in batch
        )
        Span.objects.bulk_create(
            Span(
                trace=trace,
                span_id=f"{trace.pk:08x}{i:08x}",
                parent_span_id="" if i == 0 else f"{trace.pk:08x}{0:08x}",
                position=i,
                name="invoke_agent" if i == 0 else ("chat" if i % 2 else "update_booking"),
                kind=SpanKind.AGENT if i == 0 else (SpanKind.LLM if i % 2 else SpanKind.TOOL),
                input={"booking_id": f"B-{trace.pk}", "start": "2026-12-14"},
                output={"status": "updated", "notified": True},
                started_at=trace.started_at,
                ended_at=trace.ended_at,
            )
            for trace in traces
            for i in range(SPANS_PER_TRACE)
        )
        print(f"  filled {batch.stop:,} traces", flush=True)


def measure(kind: str, limit: int) -> dict:
    from reviews.export import export_csv, export_jsonl
    from traces.models import Trace

    traces = Trace.objects.filter(project__slug="export-bench").order_by("pk")
    traces = traces.filter(pk__in=traces.values("pk")[:limit])
    stream = export_jsonl(traces) if kind == "jsonl" else export_csv(traces)
    before, peak, size, count = rss_mib(), 0.0, 0, 0
    started = time.perf_counter()
    for piece in stream:
        size += len(piece)
        count += 1
        if count % 5000 == 0:
            peak = max(peak, rss_mib())
    seconds = time.perf_counter() - started
    peak = max(peak, rss_mib())
    return {"seconds": seconds, "bytes": size, "growth_mib": peak - before, "lines": count}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB))
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    args = parser.parse_args()
    django_setup(args.database_url, "/tmp/evalsite-export-bench")
    fill(max(args.sizes))
    print(f"load average: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")
    for kind in ("jsonl", "csv"):
        for size in args.sizes:
            got = measure(kind, size)
            rate = size / got["seconds"]
            print(
                f"{kind:5} {size:>7,} traces: {got['seconds']:6.1f} s, {rate:,.0f} traces/s, "
                f"{got['bytes'] / 1e6:7.1f} MB, memory growth {got['growth_mib']:5.1f} MiB"
            )


if __name__ == "__main__":
    main()
