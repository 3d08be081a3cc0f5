"""Topics on the demo and on bigger copies of it: build time and memory, the cost of placing
one arriving trace, and whether the demo's planted failure (an order cancelled without a
lookup first) forms a topic of its own.

Each size ingests the demo's twelve scenarios `copies` times through the span-tree importer
(so red flags come from the real check at completion), every copy with its own ids, a day of
its own within the last two weeks and the customer's words varied, plus the demo's end-user
thumbs; judging is left out (no judge runs here). Then it builds topics (wall time, Python
peak memory by tracemalloc, which counts numpy's buffers), and places `--arrivals` more
traces one by one as they would arrive. Each size is grouped by TF-IDF and by embeddings from
a local OpenAI-compatible server (bench/fake_embeddings.py, through the `openai` SDK, whose
vectors hash the words); names stay the top terms, so no judge is called.

    .venv/bin/python bench/topics.py [--copies 1 10 100] [--representation tfidf embeddings]
        [--database-url postgres://...]
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

from benchdb import django_setup  # noqa: E402

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


def ingest(copies: int, arrivals: int):
    """The project with `copies` of the demo, the planted failure's trace ids, and the payloads
    of `arrivals` more traces to place one by one after a build."""
    from django.db import connection

    from demo.loader import demo_feedback_ensure
    from traces.ingest.services import ingest_span_tree
    from traces.models import Project

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
    arriving = [payload for _, payload in copies_of_demo(max(1, arrivals // 12), first=copies)]
    return project, planted_ids, arriving, ingest_s


def run(project, planted_ids: list[int], arriving: list[dict], fake=None) -> dict:
    """Build (timed, then again for its memory) and place the arrivals, by TF-IDF or, with
    `fake` (a FakeEmbeddings server), by its embeddings."""
    from django.conf import settings

    from insights.models import TraceTopic
    from insights.topics import placer, topics_build, trace_topic_assign
    from traces.ingest.services import ingest_span_tree
    from traces.models import Trace

    settings.TOPICS_EMBEDDING_MODEL = "fake-embedding" if fake else ""
    settings.TOPICS_EMBEDDING_BASE_URL = fake.base_url if fake else ""
    requests_before = fake.requests if fake else 0
    # CPU time too: on a shared machine the wall time moves with everyone else's work.
    cpu = time.process_time()
    started = time.perf_counter()
    build = topics_build(project)
    build_ms = (time.perf_counter() - started) * 1000
    build_cpu_ms = (time.process_time() - cpu) * 1000
    build_requests = (fake.requests - requests_before) if fake else 0
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
    # Arrivals come after the build (ingest places them already, on completion); their places
    # are removed and made again one by one, timed alone, the first with the build to load.
    new = [ingest_span_tree(project, payload).pk for payload in arriving]
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
    # Gone again, so the next build reads the same traces.
    Trace.objects.filter(pk__in=new).delete()
    return {
        "representation": build.method,
        "note": build.representation_note or "-",
        "traces": build.trace_count,
        "topics": len(topics),
        "build_ms": round(build_ms),
        "build_cpu_ms": round(build_cpu_ms),
        "embedding_requests": build_requests,
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
    parser.add_argument(
        "--representation",
        nargs="+",
        choices=["tfidf", "embeddings"],
        default=["tfidf", "embeddings"],
    )
    parser.add_argument("--database-url", default=DEFAULT_DB)
    args = parser.parse_args()
    # Names stay the top terms: the build is timed without calls to a judge.
    os.environ["TOPICS_NAMES_FROM_JUDGE"] = "0"
    django_setup(args.database_url, tempfile.mkdtemp(prefix="topics-bench-"))
    from fake_embeddings import FakeEmbeddings

    fake = FakeEmbeddings.start() if "embeddings" in args.representation else None
    print(f"load average {os.getloadavg()[0]:.1f}", flush=True)
    for copies in args.copies:
        project, planted_ids, arriving, ingest_s = ingest(copies, args.arrivals)
        print(f"copies={copies} ingest_s={ingest_s:.1f}", flush=True)
        for representation in args.representation:
            figures = run(
                project, planted_ids, arriving, fake if representation == "embeddings" else None
            )
            names = figures.pop("names")
            print("  " + " ".join(f"{key}={value}" for key, value in figures.items()))
            for name, size, failed in names:
                print(f"      {size:5d} traces, {failed:5d} failed: {name}")
        print(f"  load average {os.getloadavg()[0]:.1f}", flush=True)
    if fake:
        fake.stop()


if __name__ == "__main__":
    main()
