"""Trace page server time and HTML size for big traces, on PostgreSQL.

Builds agent-loop traces (root > alternating model and tool spans, payloads like real ones) of
each size asked for, then prints, per size, the page's median server CPU and wall time and
its HTML size against the targets (2,000 spans: 300 ms and 1 MB; 10,000 spans: 1 s, 2 MB).

    .venv/bin/python bench/trace_page.py [--spans 2000 10000] [--repeat 5]
"""

import argparse
import os
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchdb import database_ensure, django_setup  # noqa: E402

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/evalsite_trace_page_bench"
TARGETS = {2000: (300.0, 1_000_000), 10_000: (1000.0, 2_000_000)}


def trace_build(spans: int):
    """One agent loop of `spans` spans, stored through bulk_create."""
    from django.utils import timezone

    from tests.factories import TraceFactory
    from traces.models import Span, SpanKind

    trace = TraceFactory(task=f"Migrate the billing module ({spans} spans)")
    start = timezone.now()
    rows = [
        Span(
            trace=trace,
            span_id="root",
            name="invoke_agent coder",
            kind=SpanKind.AGENT,
            started_at=start,
            ended_at=start + timedelta(seconds=spans),
            position=0,
        )
    ]
    for index in range(1, spans):
        begin = start + timedelta(milliseconds=500 * index)
        kind = SpanKind.LLM if index % 2 else SpanKind.TOOL
        rows.append(
            Span(
                trace=trace,
                span_id=f"s{index}",
                parent_span_id="root",
                position=index,
                name="chat gpt-4.1" if kind == SpanKind.LLM else "run_tests",
                kind=kind,
                started_at=begin,
                ended_at=begin + timedelta(milliseconds=400),
                duration_ms=400,
                input={"path": f"billing/invoice_{index}.py", "args": ["-q"]},
                output={"stdout": "collected 12 items\n" + "." * 200, "exit_code": index % 7},
                input_tokens=1200 if kind == SpanKind.LLM else 0,
                attributes={"gen_ai.request.model": "gpt-4.1", "agent.step_index": index},
            )
        )
    Span.objects.bulk_create(rows, batch_size=2000)
    trace.started_at, trace.span_count = start, spans
    trace.save()
    return trace


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, nargs="+", default=[2000, 10_000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB))
    parser.add_argument("--var-dir", default="/tmp/evalsite-trace-page-bench")
    args = parser.parse_args()
    database_ensure(args.database_url)
    django_setup(args.database_url, args.var_dir)

    from django.test import Client

    from tests.factories import UserFactory

    user = UserFactory(roles=["annotator"])
    client = Client()
    client.force_login(user)
    print(f"load average before timing: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for spans in args.spans:
        trace = trace_build(spans)
        url = f"/traces/{trace.pk}/"
        client.get(url)  # warm template and URL caches
        cpu, wall, size = [], [], 0
        for _ in range(args.repeat):
            began, began_cpu = time.perf_counter(), time.process_time()
            response = client.get(url)
            wall.append((time.perf_counter() - began) * 1000)
            cpu.append((time.process_time() - began_cpu) * 1000)
            size = len(response.content)
        target_ms, target_bytes = TARGETS.get(spans, (None, None))
        against = (
            f" ({statistics.median(cpu) / target_ms:.2f}x of {target_ms:.0f} ms; "
            f"{size / target_bytes:.2f}x of {target_bytes / 1e6:.0f} MB)"
            if target_ms
            else ""
        )
        print(
            f"{spans:>6} spans: median {statistics.median(cpu):7.1f} ms CPU, "
            f"{statistics.median(wall):7.1f} ms wall, {size / 1e6:6.2f} MB HTML{against}"
        )


if __name__ == "__main__":
    main()
