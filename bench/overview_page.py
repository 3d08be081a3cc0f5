"""Overview snapshot rebuild and page server time at two data sizes on PostgreSQL.

For each size (20,000 and 100,000 traces by default) fills its own database with travel,
support and coding-agent traces (three tool spans each), two judge passes per trace under six
judge versions over twelve weeks, red flags, reviewed items with annotations and eval runs;
then prints the snapshot rebuild (what the periodic task does every minute) of an earlier
commit against this code's, taking turns after each of a few batches of new traces; then the
chart-by-chart cost of reading every day and of reading from the stored days, and the server
time of the page itself.

    .venv/bin/python bench/overview_page.py [--sizes 20000,100000] [--new 200] [--before main]

The database and cache it uses are its own (`--database-url`, `--var-dir`); REDIS_URL, when
set, holds this code's stored days, and the earlier commit keeps its own in the folder.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchdb import django_setup  # noqa: E402
from overview_data import fill  # noqa: E402
from trees import short_commit, tree_at  # noqa: E402

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/evalsite_i_bench"
TARGET_MS = 300.0


def measure(repeat: int) -> None:
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from insights.overview import (
        CHART_BUILDERS,
        INCREMENTAL_CHARTS,
        overview_build_session,
        overview_daily_store,
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
    print("snapshot build, chart by chart: reading every day, and from the stored days")
    store = overview_daily_store()
    with overview_build_session():
        for key, builder in CHART_BUILDERS.items():
            started = time.perf_counter()
            builder()
            full_ms = 1000 * (time.perf_counter() - started)
            stored = ""
            if key in INCREMENTAL_CHARTS:
                started = time.perf_counter()
                builder(store)
                stored = f"{1000 * (time.perf_counter() - started):8.1f} ms"
            print(f"  {key:<20} {full_ms:8.1f} ms {stored}")
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


BUILDER = """
import sys, time, django
django.setup()
from insights.overview import overview_snapshot_build
for line in sys.stdin:
    started = time.perf_counter()
    overview_snapshot_build()
    print(1000 * (time.perf_counter() - started), flush=True)
"""


class BeforeBuilder:
    """The earlier commit's periodic task in a process of its own, keeping what it stores
    between builds (its cache in a folder of its own), one build per `build()`."""

    def __init__(self, tree: Path, args):
        env = {
            **os.environ,
            "DATABASE_URL": args.database_url,
            "EVALSITE_VAR_DIR": tempfile.mkdtemp(prefix="evalsite-ov-before-"),
            "DJANGO_SETTINGS_MODULE": "evalsite.settings",
            "LOG_LEVEL": "WARNING",
            "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-only"),
        }
        env.pop("REDIS_URL", None)
        self.process = subprocess.Popen(
            [sys.executable, "-c", BUILDER],
            cwd=tree,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def build(self) -> float:
        self.process.stdin.write("build\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the earlier commit's build ended (exit {self.process.wait()})")
        return float(line)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)


def rebuild_figures(n_traces: int, args, before_tree: Path) -> None:
    """Snapshot rebuild after each minute of new traffic (`--new` traces with their
    judgments, labels and flags), the earlier commit's and this code's taking turns on the
    same data; each first builds once in full, as after a restart."""
    from insights.overview import overview_snapshot_build, overview_snapshot_clear

    before = BeforeBuilder(before_tree, args)
    try:
        before_full = before.build()
        overview_snapshot_clear()
        started = time.perf_counter()
        overview_snapshot_build()
        full = 1000 * (time.perf_counter() - started)
        times: dict[str, list[float]] = {"before": [], "now": []}
        for index in range(args.rounds):
            fill(args.new, seed=100 + index, first_index=n_traces + index * args.new, recent=True)
            order = ["before", "now"] if index % 2 else ["now", "before"]
            for name in order:
                if name == "before":
                    times["before"].append(before.build())
                else:
                    started = time.perf_counter()
                    overview_snapshot_build()
                    times["now"].append(1000 * (time.perf_counter() - started))
    finally:
        before.close()
    old, now = statistics.median(times["before"]), statistics.median(times["now"])
    load = os.getloadavg()
    print(
        f"rebuild at {n_traces:,} traces (load average {load[0]:.1f} {load[1]:.1f} "
        f"{load[2]:.1f} on {os.cpu_count()} cores):\n"
        f"  first or periodic full rebuild:  before {before_full:.0f} ms, now {full:.0f} ms\n"
        f"  after each {args.new} new traces:  before median {old:.0f} ms, now median "
        f"{now:.0f} ms over {args.rounds} rebuilds ({old / now:.1f}x)"
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
    django_setup(args.database_url, args.var_dir)
    before_tree = tree_at(args.before)
    commit = short_commit(args.before)
    print(f"before = {args.before} ({commit})")
    for n_traces in (int(size) for size in args.sizes.split(",")):
        fill(n_traces)
        rebuild_figures(n_traces, args, before_tree)
        measure(args.repeat)


if __name__ == "__main__":
    main()
