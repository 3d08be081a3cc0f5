"""Topics on the demo and on bigger copies of it: build time and memory, the cost of placing
one arriving trace, and whether the demo's planted failure (an order cancelled without a
lookup first) forms a topic of its own.

Each size ingests the demo's twelve scenarios `copies` times through the span-tree importer
(so red flags come from the real check at completion), every copy with its own ids, a day of
its own within the last two weeks and the customer's words varied, plus the demo's end-user
thumbs; judging is left out (no judge runs here). Then it builds topics (wall time, Python
peak memory by tracemalloc, which counts numpy's buffers), and places `--arrivals` more
traces one by one as they would arrive.

    .venv/bin/python bench/topics.py [--copies 1 10 100] [--database-url postgres://...]
"""

import argparse
import copy
import hashlib
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchdb import database_ensure, django_setup  # noqa: E402

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/evalsite_topics_bench"
PLANTED = "support-cancel-before-lookup"
OPENERS = ["", "Hello! ", "Hi there. ", "Quick one: ", "Good morning, ", "Sorry to bother you. "]


def _shift(node: dict, delta: timedelta) -> None:
    for key in ("start_time", "end_time"):
        if node.get(key):
            node[key] = (datetime.fromisoformat(node[key]) + delta).isoformat()
    for child in node.get("children", []):
        _shift(child, delta)


def copies_of_demo(copies: int, first: int = 0) -> list[tuple[str, dict]]:
    """(scenario key, span-tree payload) for `copies` varied copies of every demo scenario."""
    import json

    from demo.scenarios import SCENARIOS_FILE, scenarios

    keys = [spec["key"] for spec in json.loads(SCENARIOS_FILE.read_text())["traces"]]
    now = datetime.now(UTC)
    out = []
    for number in range(first, first + copies):
        for key, payload in zip(keys, scenarios(), strict=True):
            varied = copy.deepcopy(payload)
            varied["trace_id"] = hashlib.sha256(f"{key}:{number}".encode()).hexdigest()[:32]
            varied["input"] = OPENERS[number % len(OPENERS)] + varied["input"]
            varied.pop("context", None)  # each copy its own conversation-less trace
            start = datetime.fromisoformat(varied["start_time"])
            target = now - timedelta(days=(number * 7) % 14, hours=number % 24)
            _shift(varied, target - start)
            out.append((key, varied))
    return out


def run(copies: int, arrivals: int) -> dict:
    from django.db import connection

    from demo.loader import demo_feedback_ensure
    from insights.models import TraceTopic
    from insights.topics import placer, topics_build, trace_topic_assign
    from traces.ingest.services import ingest_span_tree
    from traces.models import Project, Trace

    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE traces_trace, traces_project CASCADE")
    project = Project.objects.create(slug="demo", name="Demo agents")
    planted_ids = []
    started = time.perf_counter()
    for key, payload in copies_of_demo(copies):
        trace = ingest_span_tree(project, payload)
        if key == PLANTED:
            planted_ids.append(trace.pk)
    ingest_s = time.perf_counter() - started
    demo_feedback_ensure(project)
    # CPU time too: on a shared machine the wall time moves with everyone else's work.
    cpu = time.process_time()
    started = time.perf_counter()
    build = topics_build(project)
    build_ms = (time.perf_counter() - started) * 1000
    build_cpu_ms = (time.process_time() - cpu) * 1000
    placer.forget()
    tracemalloc.start()
    # Again, for its memory alone (tracemalloc slows it down); the same traces, the same topics.
    build = topics_build(project)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    topics = list(build.topics.order_by("-size"))
    planted_topics = set(
        TraceTopic.objects.filter(trace_id__in=planted_ids).values_list("topic_id", flat=True)
    )
    own = None
    if len(planted_topics) == 1:
        topic = next(t for t in topics if t.pk in planted_topics)
        own = topic.size == len(planted_ids)
    # Arrivals: ingest places them already (the completion receiver); their places are
    # removed and made again one by one, timed alone, the first with the build to load.
    new = [
        ingest_span_tree(project, payload).pk
        for _, payload in copies_of_demo(max(1, arrivals // 12), first=copies)
    ]
    TraceTopic.objects.filter(trace_id__in=new).delete()
    placer.forget()
    times, cpu_times = [], []
    for pk in new:
        trace = Trace.objects.get(pk=pk)
        cpu = time.process_time()
        started = time.perf_counter()
        trace_topic_assign(trace)
        times.append((time.perf_counter() - started) * 1000)
        cpu_times.append((time.process_time() - cpu) * 1000)
    return {
        "copies": copies,
        "traces": build.trace_count,
        "ingest_s": round(ingest_s, 1),
        "topics": len(topics),
        "build_ms": round(build_ms),
        "build_cpu_ms": round(build_cpu_ms),
        "peak_mb": round(peak / 2**20, 1),
        "assign_ms_median": round(statistics.median(times[1:] or times), 2),
        "assign_ms_first": round(times[0], 2),
        "assign_cpu_ms_median": round(statistics.median(cpu_times[1:] or cpu_times), 2),
        "planted": len(planted_ids),
        "planted_topics": len(planted_topics),
        "planted_own_topic": own,
        "names": [(t.name, t.size, t.failure_count) for t in topics],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--arrivals", type=int, default=48)
    parser.add_argument("--database-url", default=DEFAULT_DB)
    args = parser.parse_args()
    database_ensure(args.database_url)
    django_setup(args.database_url, tempfile.mkdtemp(prefix="topics-bench-"))
    print(f"load average {os.getloadavg()[0]:.1f}")
    for copies in args.copies:
        figures = run(copies, args.arrivals)
        names = figures.pop("names")
        print(" ".join(f"{key}={value}" for key, value in figures.items()))
        for name, size, failed in names:
            print(f"    {size:5d} traces, {failed:5d} failed: {name}")


if __name__ == "__main__":
    main()
