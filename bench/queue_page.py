"""Review queue page server time with 20,000 open items and 100,000 traces on PostgreSQL.

Fills its own database with support, travel and coding-agent traces, queues 20,000 of them
as open review items (disputed passes, red flags, audit samples, flags), adds 3,000 settled
items answered by two people each (so agreement is computed), then prints the server time of
the queue page (default view, a filtered view, a deep page), of an item's page and of claiming
the next item.

    .venv/bin/python bench/queue_page.py [--traces 100000] [--items 20000] [--settled 3000]
        [--repeat 30] [--refill]
"""

import argparse
import datetime as dt
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchdb import bench_rubric_version, django_setup  # noqa: E402

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/evalsite_r_bench"
TARGET_MS = 100.0
BATCH = 5000
SETTLED = 3000  # settled items, by default: a queue's history

TASKS = [
    ("customer_support", "Order {n} arrived damaged; refund it to the card on file."),
    ("customer_support", "Cancel subscription {n} at the end of the billing period."),
    ("travel_booking", "Book the cheapest nonstop flight from Lisbon to Berlin, ref {n}."),
    ("travel_booking", "Move hotel booking {n} in Porto to the 14th, same room type."),
    ("coding_agent", "Fix the failing test test_parse_dates (ticket {n})."),
    ("coding_agent", "Add retry with backoff to the payment webhook client, PR {n}."),
]
REASONS = ["passes_disagree", "red_flag", "unparseable", "audit_sample", "flagged"]


def fill(n_traces: int, n_items: int, n_settled: int = SETTLED, seed: int = 5) -> None:
    """Bulk-insert traces, open review items and settled items with two answers each."""
    from django.db import connection

    from reviews.models import Annotation, Queue, ReviewItem
    from tests.factories import UserFactory
    from traces.models import Project, Trace

    rng = random.Random(seed)
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE traces_trace, reviews_queue CASCADE")
    now = dt.datetime.now(dt.UTC)
    project, _ = Project.objects.get_or_create(slug="bench", defaults={"name": "Bench agents"})
    version = bench_rubric_version("Bench tool-call accuracy", "Judge each tool call.", "binary")
    queue = Queue.objects.create(
        name="Bench tool calls", rubric=version.rubric, annotators_per_item=2
    )
    people = [UserFactory(username=f"bench-reviewer-{i}", roles=["annotator"]) for i in range(2)]
    started = time.perf_counter()
    tasks_by_id: dict[int, str] = {}
    for offset in range(0, n_traces, BATCH):
        batch = []
        for i in range(offset, min(offset + BATCH, n_traces)):
            task_type, task = TASKS[i % len(TASKS)]
            at = now - dt.timedelta(minutes=rng.randrange(0, 60 * 24 * 60))
            batch.append(
                Trace(
                    project=project,
                    external_id=f"{i:032x}",
                    task=task.format(n=f"A{100000 + i}"),
                    final_answer="Done: the request was completed.",
                    task_type=task_type,
                    agent_name=f"{task_type}-agent",
                    agent_version=f"2.{i % 5}.0",
                    source_format="span_tree",
                    started_at=at,
                    ended_at=at + dt.timedelta(seconds=rng.randint(3, 90)),
                    span_count=4,
                )
            )
        for trace in Trace.objects.bulk_create(batch, batch_size=BATCH):
            tasks_by_id[trace.pk] = trace.task
    chosen = rng.sample(sorted(tasks_by_id), n_items + n_settled)
    items = [
        ReviewItem(
            queue=queue,
            trace_id=trace_id,
            task_excerpt=tasks_by_id[trace_id][:500],
            rubric_version=version,
            reason=REASONS[index % len(REASONS)],
            priority=rng.choice([0, 0, 0, 1, 5]),
            status="open" if index < n_items else "resolved",
            resolved_score=None if index < n_items else 1.0,
            resolved_at=None if index < n_items else now - dt.timedelta(hours=rng.randint(0, 30)),
        )
        for index, trace_id in enumerate(chosen)
    ]
    ReviewItem.objects.bulk_create(items, batch_size=BATCH)
    settled = [item for item in items if item.status == "resolved"]
    Annotation.objects.bulk_create(
        [
            Annotation(item=item, annotator=person, score=float(rng.random() < 0.8))
            for item in settled
            for person in people
        ],
        batch_size=BATCH,
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(
        f"filled {n_traces:,} traces, {n_items:,} open and {n_settled:,} settled items "
        f"in {time.perf_counter() - started:.1f} s"
    )


def timed_pages(variants: list[tuple[str, object, str]], repeat: int) -> dict:
    """Server time per variant; rounds interleave the variants so machine load hits all alike.

    Each variant is (label, logged-in client, url). Returns label -> (times in ms, queries).
    """
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _, client, url in variants:  # warm caches and the connection
        for _ in range(3):
            assert client.get(url).status_code == 200
    times: dict[str, list[float]] = {label: [] for label, _, _ in variants}
    for _ in range(repeat):
        for label, client, url in variants:
            started = time.perf_counter()
            response = client.get(url)
            times[label].append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, response.status_code
    results = {}
    for label, client, url in variants:
        with CaptureQueriesContext(connection) as queries:
            client.get(url)
        results[label] = (times[label], len(queries))
    return results


def report(label: str, times: list[float], queries: int | None = None) -> float:
    median = statistics.median(times)
    p95 = sorted(times)[max(0, int(len(times) * 0.95) - 1)]
    extra = f", {queries} queries" if queries is not None else ""
    print(
        f"{label:<34} median {median:6.1f} ms  best {min(times):6.1f} ms  p95 {p95:6.1f} ms  "
        f"({median / TARGET_MS:.2f}x of the {TARGET_MS:.0f} ms target{extra})"
    )
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=100_000)
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--settled", type=int, default=SETTLED, help="settled items")
    parser.add_argument("--refill", action="store_true")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB))
    parser.add_argument("--var-dir", default="/tmp/evalsite-r-bench")
    args = parser.parse_args()
    django_setup(args.database_url, args.var_dir)

    from django.db.models import Q
    from django.test import Client

    from core.keyset import cursor_encode
    from reviews.claims import review_item_claim_next
    from reviews.models import Queue, ReviewItem
    from reviews.selectors import CLAIM_ORDER, queue_items
    from tests.factories import UserFactory
    from traces.models import Trace

    queue = Queue.objects.filter(name="Bench tool calls").first()
    if (
        args.refill
        or queue is None
        or Trace.objects.count() != args.traces
        or ReviewItem.objects.filter(queue=queue, status="open").count() != args.items
        or ReviewItem.objects.filter(queue=queue, status="resolved").count() != args.settled
    ):
        fill(args.traces, args.items, args.settled)
        queue = Queue.objects.get(name="Bench tool calls")
    print(
        f"{Trace.objects.count():,} traces; "
        f"{ReviewItem.objects.filter(queue=queue, status='open').count():,} open items in queue"
    )
    annotator = UserFactory(username="bench-annotator", roles=["annotator"])
    curator = UserFactory(username="bench-curator", roles=["curator"])
    client = Client()
    client.force_login(annotator)
    url = f"/reviews/queues/{queue.pk}/"
    curator_client = Client()
    curator_client.force_login(curator)
    # Page 300 as the reader reaches it: the Next link of page 299 carries its last item.
    in_order = queue_items(queue, {}, annotator).order_by(*CLAIM_ORDER)
    page_300 = url + "?after=" + cursor_encode(CLAIM_ORDER, in_order[299 * 50 - 1])
    held = review_item_claim_next(user=annotator, queue=queue)
    variants = [
        ("queue page (annotator)", client, url),
        ("queue page, reason=red_flag", client, url + "?reason=red_flag"),
        ("queue page, task search", client, url + "?q=Porto"),
        ("queue page, page 300 (cursor)", client, page_300),
        ("queue page, page 300 (old ?page= link)", client, url + "?page=300"),
        ("queue page (curator, bulk form)", curator_client, url),
        ("item page (annotator)", client, f"/reviews/items/{held.pk}/"),
    ]
    print(f"load average before timing: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    medians = [
        report(label, times, queries)
        for label, (times, queries) in timed_pages(variants, args.repeat).items()
    ]
    claims = []
    for _ in range(args.repeat):
        person = UserFactory(username=f"bench-claimer-{len(claims)}", roles=["annotator"])
        started = time.perf_counter()
        assert review_item_claim_next(user=person, queue=queue) is not None
        claims.append((time.perf_counter() - started) * 1000)
    report("claim next item (service)", claims)
    ReviewItem.objects.filter(
        Q(claimed_by__username="bench-annotator")
        | Q(claimed_by__username__startswith="bench-claimer-")
    ).update(claimed_by=None, lock_expires_at=None)
    worst = max(medians)
    verdict = "meets" if worst < TARGET_MS else "MISSES"
    print(f"slowest page median {worst:.1f} ms {verdict} the {TARGET_MS:.0f} ms target")


if __name__ == "__main__":
    main()
