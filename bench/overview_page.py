"""Overview snapshot rebuild and page server time at two data sizes on PostgreSQL.

For each size (20,000 and 100,000 traces by default) fills its own database with travel,
support and coding-agent traces (three tool spans each), two judge passes per trace under six
judge versions over twelve weeks, red flags, reviewed items with annotations and eval runs;
then prints the snapshot rebuild (what the periodic task does every minute) of an earlier
commit, which read everything each time, against this code's, which reads the days that
changed, after each of a few batches of new traces; then the chart-by-chart cost of a full
read and the server time of the page itself.

    .venv/bin/python bench/overview_page.py [--sizes 20000,100000] [--new 200] [--before main]
"""

import argparse
import datetime as dt
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchdb import database_ensure, django_setup  # noqa: E402
from memory import tree_at  # noqa: E402

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/evalsite_i_bench"
TARGET_MS = 300.0
BATCH = 5000

TASKS = [
    (
        "travel_booking",
        "Book the cheapest nonstop flight from Lisbon to Berlin on 14 March.",
        ["search_flights", "get_fare_rules", "book_flight"],
    ),
    (
        "customer_support",
        "Order A1042 arrived damaged; refund it to the card on file.",
        ["get_order", "check_refund_policy", "issue_refund"],
    ),
    (
        "coding_agent",
        "Fix the failing test test_parse_dates in utils/test_dates.py.",
        ["run_tests", "read_file", "edit_file"],
    ),
]
FLAG_KINDS = ["prerequisite", "hallucinated_parameter", "loop", "confident_after_failure"]


def fill(n_traces: int, seed: int = 1, first_index: int = 0, recent: bool = False) -> None:
    """Write the data set with bulk inserts; one judged trace gives two judgments.

    `first_index` > 0 adds traces numbered from there to the existing data (no truncation, no new
    eval runs); `recent` stamps them within the last half hour, as a minute of new traffic."""
    from django.contrib.auth.models import User
    from django.db import connection

    from golden.models import DatasetVersion, EvalRun
    from judges.models import (
        JudgeConfig,
        JudgeRun,
        Judgment,
        RedFlag,
        Rubric,
        RubricVersion,
        Verdict,
    )
    from reviews.models import Annotation, Queue, ReviewItem
    from tests.factories import UserFactory
    from traces.models import Project, Span, Trace

    rng = random.Random(seed)
    since_id = Trace.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1"
            if first_index
            else "TRUNCATE traces_trace, judges_judgerun, "
            "reviews_reviewitem, golden_evalrun, golden_datasetversion CASCADE"
        )
    now = dt.datetime.now(dt.UTC)
    project, _ = Project.objects.get_or_create(slug="bench", defaults={"name": "Bench agents"})
    versions = []
    for name, score_type, low, high in [
        ("Bench tool-call accuracy", "binary", 0, 1),
        ("Bench outcome 1-5", "range", 1, 5),
        ("Bench refund policy", "binary", 0, 1),
    ]:
        rubric, _ = Rubric.objects.get_or_create(name=name)
        version, _ = RubricVersion.objects.get_or_create(
            rubric=rubric,
            number=1,
            defaults=dict(
                system_prompt="Judge the trajectory.",
                user_template="{{ trace }}",
                score_type=score_type,
                score_min=low,
                score_max=high,
                output_format="evaluation_summary",
            ),
        )
        versions.append(version)
    configs = [
        JudgeConfig.objects.get_or_create(name=f"bench {m}", defaults={"model": m})[0]
        for m in ("claude-sonnet-4-5", "claude-haiku-4-5")
    ]
    runs = [
        JudgeRun.objects.get_or_create(rubric_version=v, config=c)[0]
        for v in versions
        for c in configs
    ]
    queue, _ = Queue.objects.get_or_create(name="Default")
    people = [
        User.objects.filter(username=f"bench-annotator-{i}").first()
        or UserFactory(username=f"bench-annotator-{i}", roles=["annotator"])
        for i in range(6)
    ]

    started = time.perf_counter()
    span_minutes = 30 if recent else 12 * 7 * 24 * 60
    for offset in range(first_index, first_index + n_traces, BATCH):
        size = min(BATCH, first_index + n_traces - offset)
        traces = []
        for i in range(offset, offset + size):
            task_type, task, _ = TASKS[i % 3]
            at = now - dt.timedelta(minutes=rng.randrange(0, span_minutes))
            traces.append(
                Trace(
                    project=project,
                    external_id=f"{i:032x}",
                    task=task,
                    task_type=task_type,
                    agent_name="bench-agent",
                    agent_version=f"1.{i % 4}.0",
                    source_format="span_tree",
                    started_at=at,
                    ended_at=at + dt.timedelta(seconds=20),
                    span_count=3,
                )
            )
        Trace.objects.bulk_create(traces, batch_size=BATCH)
        spans, judgments, verdicts, flagged = [], [], [], []
        for index, trace in enumerate(traces):
            i = offset + index
            _, _, tools = TASKS[i % 3]
            n_steps = 1 + min(int(rng.expovariate(0.45)), 9)
            for step in range(min(n_steps, 3)):
                tool = tools[step]
                spans.append(
                    Span(
                        trace=trace,
                        span_id=f"{i:012x}{step:04x}",
                        name=tool,
                        kind="tool",
                        tool_name=tool,
                        component=f"tool:{tool}",
                        status="error" if rng.random() < 0.04 else "ok",
                        started_at=trace.started_at,
                        position=step,
                    )
                )
            run = runs[i % len(runs)]
            version = run.rubric_version
            top = 5.0 if version.score_type == "range" else 1.0
            low = 1.0 if version.score_type == "range" else 0.0
            first = float(rng.randint(int(low), int(top)))
            flip = rng.random() < 0.12
            second = (low if first == top else first + 1) if flip else first
            completed = trace.started_at + dt.timedelta(minutes=2)
            for pass_index, score in enumerate((first, second)):
                judgments.append(
                    Judgment(
                        trace=trace,
                        rubric_version=version,
                        config=run.config,
                        run=run,
                        pass_index=pass_index,
                        status="done",
                        score=score,
                        parse_status="ok",
                        input_tokens=2400,
                        output_tokens=180,
                        cache_read_tokens=2000 if pass_index else 0,
                        cost_usd=Decimal("0.009900"),
                        served_from_cache=rng.random() < 0.03,
                        completed_at=completed,
                    )
                )
            verdicts.append(
                Verdict(
                    trace=trace,
                    rubric_version=version,
                    config=run.config,
                    run=run,
                    status="disputed" if flip else "agreed",
                    score=None if flip else first,
                )
            )
            if rng.random() < 0.1:
                flagged.append(trace)
        Span.objects.bulk_create(spans, batch_size=BATCH)
        Judgment.objects.bulk_create(judgments, batch_size=BATCH)
        Verdict.objects.bulk_create(verdicts, batch_size=BATCH)
        spans_by_trace = {s.trace_id: s for s in spans if s.position == 1}
        RedFlag.objects.bulk_create(
            [
                RedFlag(trace=t, span=spans_by_trace.get(t.pk), kind=rng.choice(FLAG_KINDS))
                for t in flagged
            ],
            batch_size=BATCH,
        )
        # Backdate verdicts and judgments to their trace so weekly charts span twelve weeks.
        items, annotations = [], []
        for verdict in verdicts:
            if rng.random() < 0.06:
                human = verdict.score if verdict.score is not None else 1.0
                if rng.random() < 0.15:
                    human = 0.0 if human else 1.0
                items.append(
                    ReviewItem(
                        queue=queue,
                        trace_id=verdict.trace_id,
                        verdict=verdict,
                        rubric_version=verdict.rubric_version,
                        reason="passes_disagree" if verdict.score is None else "audit_sample",
                        status="resolved" if rng.random() < 0.8 else "open",
                        resolved_score=human,
                    )
                )
        ReviewItem.objects.bulk_create(items, batch_size=BATCH)
        for item in items:
            if item.status == "resolved":
                for person in rng.sample(people, 2):
                    annotations.append(
                        Annotation(item=item, annotator=person, score=item.resolved_score)
                    )
        Annotation.objects.bulk_create(annotations, batch_size=BATCH)
        print(f"  {offset + size:,} traces written", end="\r", flush=True)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE judges_verdict v SET created_at = t.started_at + interval '2 minutes' "
            "FROM traces_trace t WHERE t.id = v.trace_id AND t.id > %s",
            [since_id],
        )
        cursor.execute(
            "UPDATE reviews_reviewitem r SET created_at = t.started_at + interval '5 minutes', "
            "resolved_at = CASE WHEN r.status = 'resolved' "
            "THEN t.started_at + interval '7 hours' END "
            "FROM traces_trace t WHERE t.id = r.trace_id AND t.id > %s",
            [since_id],
        )
        cursor.execute("ANALYZE")
    if first_index:
        return
    dataset = DatasetVersion.objects.create(name="bench v1", content_hash="0" * 64)
    for index in range(60):
        noop = index % 3 == 0
        outcome = 0.78 + rng.gauss(0, 0.01) + (0 if noop else 0.002 * index)
        EvalRun.objects.create(
            name=f"bench run {index}",
            agent_version=f"1.{index // 15}.0",
            dataset_version=dataset,
            is_noop=noop,
            metrics={
                "overall": {
                    "outcome_score": outcome,
                    "tool_selection_accuracy": min(1.0, outcome + 0.1),
                    "parameter_accuracy": outcome + 0.05,
                    "pass_hat_k": outcome - 0.25,
                }
            },
        )
    print(f"\nfilled in {time.perf_counter() - started:.0f} s")


def measure(repeat: int) -> None:
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from insights.overview import (
        CHART_BUILDERS,
        overview_build_session,
        overview_snapshot_clear,
        overview_snapshot_refresh,
    )
    from judges.models import Judgment
    from tests.factories import UserFactory
    from traces.models import Span, Trace

    print(
        f"data: {Trace.objects.count():,} traces, {Judgment.objects.count():,} judgments, "
        f"{Span.objects.count():,} spans"
    )
    print("snapshot build, chart by chart (the periodic task's work):")
    with overview_build_session():
        for key, builder in CHART_BUILDERS.items():
            started = time.perf_counter()
            builder()
            print(f"  {key:<20} {1000 * (time.perf_counter() - started):8.1f} ms")
    overview_snapshot_clear()
    started = time.perf_counter()
    overview_snapshot_refresh()
    build_ms = 1000 * (time.perf_counter() - started)
    print(f"snapshot build total: {build_ms:.0f} ms")

    user = UserFactory(username="bench-lead", roles=["annotator"])
    client = Client()
    client.force_login(user)
    client.get("/")  # warm the template and connection
    times = []
    for _ in range(repeat):
        reset_queries()
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            response = client.get("/")
            times.append(1000 * (time.perf_counter() - started))
        assert response.status_code == 200, response.status_code
    median = statistics.median(times)
    p95 = sorted(times)[max(0, int(0.95 * len(times)) - 1)]
    print(
        f"overview page server time: median {median:.1f} ms, p95 {p95:.1f} ms over {repeat} "
        f"requests, {len(queries)} queries; target < {TARGET_MS:.0f} ms "
        f"({TARGET_MS / median:.1f}x headroom)"
    )
    print(f"page without the snapshot would take ~{build_ms:.0f} ms ({build_ms / median:.0f}x)")


BEFORE_BUILD = """
import json, statistics, time, django
django.setup()
try:
    from insights.overview import overview_snapshot_build
except ImportError:
    from evalsite.insights.overview import overview_snapshot_build
times = []
for _ in range({rounds}):
    started = time.perf_counter()
    overview_snapshot_build()
    times.append(1000 * (time.perf_counter() - started))
print(json.dumps(statistics.median(times)))
"""


def before_build_ms(tree: Path, args, rounds: int) -> float:
    """The earlier commit's snapshot build (it read everything each time), in its own process."""
    env = {
        **os.environ,
        "DATABASE_URL": args.database_url,
        "EVALSITE_VAR_DIR": tempfile.mkdtemp(prefix="evalsite-ov-before-"),
        "DJANGO_SETTINGS_MODULE": "evalsite.settings",
        "LOG_LEVEL": "WARNING",
        "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-only"),
    }
    env.pop("REDIS_URL", None)
    out = subprocess.run(
        [sys.executable, "-c", BEFORE_BUILD.format(rounds=rounds)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    if out.returncode:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def rebuild_figures(n_traces: int, args, before_tree: Path) -> None:
    """Snapshot rebuild: the earlier code, this code's full read, and this code after each
    minute of new traffic (`--new` traces with their judgments), which reads changed days."""
    from insights.overview import overview_snapshot_build, overview_snapshot_clear

    before = before_build_ms(before_tree, args, args.rounds)
    overview_snapshot_clear()
    started = time.perf_counter()
    overview_snapshot_build()
    full = 1000 * (time.perf_counter() - started)
    incremental = []
    for index in range(args.rounds):
        fill(args.new, seed=100 + index, first_index=n_traces + index * args.new, recent=True)
        started = time.perf_counter()
        overview_snapshot_build()
        incremental.append(1000 * (time.perf_counter() - started))
    now = statistics.median(incremental)
    load = os.getloadavg()
    print(
        f"rebuild at {n_traces:,} traces (load average {load[0]:.1f} {load[1]:.1f} "
        f"{load[2]:.1f} on {os.cpu_count()} cores):\n"
        f"  before (every rebuild reads everything): median {before:.0f} ms\n"
        f"  now, first or periodic full rebuild:     {full:.0f} ms\n"
        f"  now, after {args.new} new traces:          median {now:.0f} ms over {args.rounds} "
        f"rebuilds ({before / now:.1f}x faster than before)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20000,100000", help="traces, smallest first")
    parser.add_argument("--new", type=int, default=200, help="traces added between rebuilds")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", default="main", help="the earlier commit to compare with")
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--database-url", default=DEFAULT_DB)
    parser.add_argument("--var-dir", default="/tmp/evalsite-i-bench")
    args = parser.parse_args()
    database_ensure(args.database_url)
    django_setup(args.database_url, args.var_dir)
    before_tree = tree_at(args.before)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", args.before], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    print(f"before = {args.before} ({commit})")
    for n_traces in (int(size) for size in args.sizes.split(",")):
        fill(n_traces)
        rebuild_figures(n_traces, args, before_tree)
        measure(args.repeat)


if __name__ == "__main__":
    main()
