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
import json
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

from benchdb import database_ensure, django_setup  # noqa: E402
from memory import tree_at  # noqa: E402
from overview_data import fill  # noqa: E402

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/evalsite_i_bench"
TARGET_MS = 300.0


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
    from insights.overview import overview_snapshot_build
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
