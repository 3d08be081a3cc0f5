"""Trace page server time and HTML size for big traces, this code against an earlier commit's.

Builds agent-loop traces (root > alternating model and tool spans with OTel span ids, message
lists, tool output and attributes of the sizes real agents send) on PostgreSQL, then renders
each trace's page with Django's test client in the earlier tree, then in this one,
with the garbage collector set as gunicorn.conf.py sets it in a web worker, and prints per
size the median server CPU and wall time and the HTML size, the ratio now/before
and the targets (2,000 spans: 300 ms and 1 MB; 10,000 spans: 1 s and 2 MB), with the load
average.

    .venv/bin/python bench/trace_page.py [--before REF] [--spans 2000 10000] [--repeat 5]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchdb import django_setup  # noqa: E402
from trees import trees_compared  # noqa: E402

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/evalsite_trace_page_bench"
TARGETS = {2000: (300.0, 1_000_000), 10_000: (1000.0, 2_000_000)}
SYSTEM = (
    "You are a coding agent. Work in small steps, run the tests after each change and never "
    "edit files outside the repository. " * 4
)

# Runs inside either tree: renders one page `repeat` times, prints JSON figures.
MEASURE = """
import json, os, sys, time
os.environ["DJANGO_SETTINGS_MODULE"] = "evalsite.settings"
import django
django.setup()
from django.contrib.auth import get_user_model
from django.test import Client
trace_id, username, repeat = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
client = Client()
client.force_login(get_user_model().objects.get(username=username))
url = f"/traces/{trace_id}/"
client.get(url)  # warm template and URL caches
# As a gunicorn web worker runs: the tree's own post_fork (garbage collector settings).
import runpy
if os.path.exists("gunicorn.conf.py"):
    runpy.run_path("gunicorn.conf.py").get("post_fork", lambda server, worker: None)(None, None)
cpu, wall = [], []
for _ in range(repeat):
    began, began_cpu = time.perf_counter(), time.process_time()
    response = client.get(url)
    wall.append((time.perf_counter() - began) * 1000)
    cpu.append((time.process_time() - began_cpu) * 1000)
assert response.status_code == 200, response.status_code
print(json.dumps({"cpu": cpu, "wall": wall, "bytes": len(response.content)}))
"""


def _model_call(index: int) -> tuple[list, dict]:
    history = [{"role": "system", "content": SYSTEM}]
    history.append({"role": "user", "content": "Move billing to the new invoice API."})
    for step in range(max(0, min(index, 6) - 1)):
        history.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": f"call_{step}", "function": {"name": "run_tests"}}],
            }
        )
        history.append({"role": "tool", "content": "collected 12 items\n" + "." * 120})
    reply = {
        "role": "assistant",
        "content": f"Step {index}: tests pass for invoice_{index}.py; next, the totals module.",
        "tool_calls": [{"id": f"call_{index}", "function": {"name": "run_tests"}}],
    }
    return history, reply


def trace_build(spans: int):
    """One agent loop of `spans` spans, stored through bulk_create."""
    from django.utils import timezone

    from tests.factories import TraceFactory
    from traces.models import Span, SpanKind

    trace = TraceFactory(
        external_id=os.urandom(16).hex(), task=f"Migrate the billing module ({spans} spans)"
    )
    start = timezone.now()
    root_id = os.urandom(8).hex()
    rows = [
        Span(
            trace=trace,
            span_id=root_id,
            name="invoke_agent coder",
            kind=SpanKind.AGENT,
            started_at=start,
            ended_at=start + timedelta(seconds=spans),
            position=0,
            input="Move billing to the new invoice API.",
        )
    ]
    for index in range(1, spans):
        begin = start + timedelta(milliseconds=500 * index)
        kind = SpanKind.LLM if index % 2 else SpanKind.TOOL
        if kind == SpanKind.LLM:
            value_in, value_out = _model_call(index)
        else:
            value_in = {"path": f"billing/invoice_{index}.py", "args": ["-q", "--maxfail=1"]}
            value_out = {"stdout": "collected 12 items\n" + "." * 400, "exit_code": index % 7}
        rows.append(
            Span(
                trace=trace,
                span_id=os.urandom(8).hex(),
                parent_span_id=root_id,
                position=index,
                name="chat gpt-4.1" if kind == SpanKind.LLM else "run_tests",
                kind=kind,
                tool_name="" if kind == SpanKind.LLM else "run_tests",
                model="gpt-4.1" if kind == SpanKind.LLM else "",
                started_at=begin,
                ended_at=begin + timedelta(milliseconds=400),
                duration_ms=400,
                input=value_in,
                output=value_out,
                input_tokens=1200 if kind == SpanKind.LLM else 0,
                output_tokens=80 if kind == SpanKind.LLM else 0,
                attributes={
                    "gen_ai.operation.name": "chat" if kind == SpanKind.LLM else "execute_tool",
                    "gen_ai.request.model": "gpt-4.1",
                    "agent.step_index": index,
                    "service.name": "coder",
                    "service.version": "0.9.1",
                },
            )
        )
    Span.objects.bulk_create(rows, batch_size=2000)
    trace.started_at, trace.span_count = start, spans
    trace.save()
    return trace


def measure(tree: Path, database_url: str, trace_id: int, user: str, repeat: int) -> dict:
    env = {**os.environ, "DATABASE_URL": database_url, "PYTHONPATH": str(tree)}
    env.update(LOG_LEVEL="WARNING", ALLOWED_HOSTS="testserver")
    result = subprocess.run(
        [sys.executable, "-c", MEASURE, str(trace_id), user, str(repeat)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main", help="the earlier commit to compare with")
    parser.add_argument("--spans", type=int, nargs="+", default=[2000, 10_000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB))
    parser.add_argument("--var-dir", default="/tmp/evalsite-trace-page-bench")
    args = parser.parse_args()
    django_setup(args.database_url, args.var_dir)
    os.environ.setdefault("EVALSITE_VAR_DIR", tempfile.mkdtemp(prefix="evalsite-bench-var-"))

    from tests.factories import UserFactory

    user = UserFactory(roles=["annotator"])
    trees = trees_compared(args.before)
    print(
        f"before = {args.before}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
    )
    for spans in args.spans:
        trace = trace_build(spans)
        figures = {
            name: measure(tree, args.database_url, trace.pk, user.username, args.repeat)
            for name, tree in trees.items()
        }
        for name, got in figures.items():
            cpu, wall = statistics.median(got["cpu"]), statistics.median(got["wall"])
            print(
                f"{spans:>6} spans {name:>6}: median {cpu:7.1f} ms CPU, {wall:7.1f} ms wall, "
                f"{got['bytes'] / 1e6:6.2f} MB HTML"
            )
        before, now = figures["before"], figures["now"]
        ratio_ms = statistics.median(now["wall"]) / statistics.median(before["wall"])
        line = f"{spans:>6} spans now/before: {ratio_ms:.2f}x time, "
        line += f"{now['bytes'] / before['bytes']:.2f}x size"
        if spans in TARGETS:
            target_ms, target_bytes = TARGETS[spans]
            ok = statistics.median(now["wall"]) < target_ms and now["bytes"] < target_bytes
            line += f"; target {target_ms:.0f} ms and {target_bytes / 1e6:.0f} MB: "
            line += "met" if ok else "NOT met"
        print(line)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
