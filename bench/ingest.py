"""OTLP ingestion throughput: recorded OpenTelemetry SDK spans POSTed to gunicorn + PostgreSQL.

Starts gunicorn on its own PostgreSQL database, records travel-agent traces (11 spans each,
tool outputs of realistic size) with the OpenTelemetry SDK, encodes them with the SDK's own
OTLP encoder (protobuf, or OTLP/JSON as collectors write it), POSTs them from several processes
after one warm-up request each, and prints spans stored per CPU-second of gunicorn + PostgreSQL.

The same bodies also go through a ceiling of our own (bench/ingest_ceiling.py: decode, flatten
and COPY in one process); evalsite's figure is printed as a share of it. With --compare DIR
the same run also serves the code checked out in DIR (a git worktree of an earlier commit),
alternating with this one, and prints the ratio between them. With --masking builtin this
tree's project masks with every built-in detector (traces.masking); `--compare .` then measures
masking's cost against the same code without it. The session table is analyzed as it grows,
as a server's autovacuum would (results_wait says why); --analyze once only after warm-up.

    .venv/bin/python bench/ingest.py --repeat 3 --compare ../evalsite-base
    .venv/bin/python bench/ingest.py --repeat 3 --masking builtin --compare .
"""

import argparse
import http.client
import json
import multiprocessing
import os
import queue
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.request import urlopen

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.benchdb import database_ensure  # noqa: E402
from bench.ingest_ceiling import ceiling_measure  # noqa: E402

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/evalsite_t_bench"
SPANS_PER_TRACE = 11
CEILING_PASSES = 3
# Warm-up requests a sender makes (a trace each): a worker's first request loads code.
WARM_UP_REQUESTS = 4
MEDIA = {"protobuf": "application/x-protobuf", "json": "application/json"}
# Run inside the served tree: migrate, empty the trace, session and span tables (every run makes
# the same sessions; spans have no foreign key to truncate them with their traces), print an
# annotator's API token.
SETUP = """
import django
django.setup()
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.db import connection
from accounts.models import ApiToken
from accounts.roles import ANNOTATOR
from tests.factories import UserFactory
call_command("migrate", verbosity=0)
with connection.cursor() as cursor:
    cursor.execute("TRUNCATE traces_trace, traces_session, traces_span CASCADE")
user = UserFactory()
user.groups.add(Group.objects.get_or_create(name=ANNOTATOR)[0])
import os
try:  # code from before masking has no rules to clear
    from traces.models import MaskingRule
    MaskingRule.objects.all().delete()
except ImportError:
    pass
if os.environ.get("BENCH_MASKING") == "builtin":
    from traces.masking.rules import builtin_rules_enable
    from traces.projects import project_resolve
    builtin_rules_enable(project_resolve(), None)
print(ApiToken.generate(user, "bench")[1])
"""


def env_for(database_url: str, var_dir: str) -> dict:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database_url,
        EVALSITE_VAR_DIR=var_dir,
        DJANGO_SETTINGS_MODULE="evalsite.settings",
        LOG_LEVEL="WARNING",
        ALLOWED_HOSTS="127.0.0.1,localhost",
    )
    return env


def tree_setup(tree: Path, env: dict) -> str:
    """Migrate and empty the tree's database with the tree's own code; its API token."""
    out = subprocess.run(
        [str(tree / ".venv/bin/python"), "-c", SETUP],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip().splitlines()[-1]


def server_start(tree: Path, env: dict, port: int, workers: int) -> subprocess.Popen:
    gunicorn = [str(tree / ".venv/bin/python"), "-m", "gunicorn"]
    command = [*gunicorn, "evalsite.wsgi", "--bind", f"127.0.0.1:{port}"]
    command += ["--workers", str(workers), "--log-level", "warning", "--timeout", "120"]
    process = subprocess.Popen(command, cwd=tree, env=env, start_new_session=True)
    for _ in range(150):
        try:
            urlopen(f"http://127.0.0.1:{port}/login/", timeout=1)
            return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("gunicorn did not start")


def tree_rss_kb(pid: int) -> int:
    """RSS of a process and its children (gunicorn master and workers)."""
    total = 0
    for each in tree_pids(pid):
        try:
            for line in Path(f"/proc/{each}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except FileNotFoundError:
            continue
    return total


def tree_pids(pid: int) -> list[int]:
    children = Path(f"/proc/{pid}/task/{pid}/children")
    return [pid] + ([int(p) for p in children.read_text().split()] if children.exists() else [])


def cpu_by_pid(pids) -> dict[int, float]:
    """User + system CPU seconds of each process, from /proc (clock ticks)."""
    ticks = os.sysconf("SC_CLK_TCK")
    out = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        out[pid] = (int(fields[11]) + int(fields[12])) / ticks
    return out


def database_backends(conn) -> list[int]:
    """PostgreSQL backends serving the bench database, other than the bench's own."""
    rows = conn.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
        "AND pid <> pg_backend_pid()"
    ).fetchall()
    return [row[0] for row in rows]


# Cumulative counters of the database's statistics views for the trace and span tables: index
# pages touched (cached or read) and rows inserted, updated and updated in place (HOT, writing
# no index entry). Unlike CPU seconds they do not move with the machine's load.
WRITE_COUNTERS = """
SELECT t.relname, t.n_tup_ins, t.n_tup_upd, t.n_tup_hot_upd,
       coalesce(io.idx_blks_hit, 0) + coalesce(io.idx_blks_read, 0)
FROM pg_stat_user_tables t JOIN pg_statio_user_tables io USING (relid)
WHERE t.relname IN ('traces_trace', 'traces_session') OR t.relname LIKE 'traces_span%'
"""


def write_counters(database_url: str) -> dict[str, list[int]]:
    """WRITE_COUNTERS summed per table (the span partitions as one), as the server's backends
    left them: read after they exit, which flushes their statistics."""
    totals: dict[str, list[int]] = {}
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        for name, *values in conn.execute(WRITE_COUNTERS).fetchall():
            table = "traces_span" if name.startswith("traces_span") else name
            kept = totals.setdefault(table, [0] * len(values))
            for index, value in enumerate(values):
                kept[index] += value
    return totals


def record_spans(traces: int, padding: int, offset: int):
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from tests.traces import otel_agents

    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "travel-agent"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = otel_agents.tracer_for(provider)
    for run in range(traces):
        otel_agents.travel_agent_run(tracer, padding=padding, run=offset + run)
    return list(memory.get_finished_spans())


def _hex_ids(node):
    """OTLP/JSON writes trace and span ids as hex, where protobuf's JSON mapping has base64."""
    import base64

    if isinstance(node, dict):
        return {
            key: base64.b64decode(value).hex()
            if key in ("traceId", "spanId", "parentSpanId")
            else _hex_ids(value)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_hex_ids(item) for item in node]
    return node


def bodies_encode(spans, batch: int, fmt: str) -> list[bytes]:
    """Export request bodies of `batch` spans, as the SDK's OTLP exporter encodes them."""
    from google.protobuf import json_format
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    bodies = []
    for i in range(0, len(spans), batch):
        message = encode_spans(spans[i : i + batch])
        if fmt == "json":
            bodies.append(json.dumps(_hex_ids(json_format.MessageToDict(message))).encode())
        else:
            bodies.append(message.SerializeToString())
    return bodies


def sender(port, token, fmt, warm_up, bodies, ready, start, results):
    """One agent process: warm up, wait for the start, then POST its export requests."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Content-Type": MEDIA[fmt], "Authorization": f"Bearer {token}"}

    def post(body) -> bool:
        connection.request("POST", "/v1/traces", body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status == 200

    for body in warm_up:
        post(body)
    ready.put(True)
    start.wait()
    failed = sum(not post(body) for body in bodies)
    results.put(failed)


def run_once(tree: Path, label: str, fmt: str, args, payload: dict) -> dict:
    """Serve `tree`, send every body of `fmt`, and measure the server's CPU per stored span."""
    database_url = args.database_url + ("" if label == "this" else "_base")
    database_ensure(database_url)
    env = env_for(database_url, f"{args.var_dir}-{label}")
    env["BENCH_MASKING"] = args.masking if label == "this" else "off"
    token = tree_setup(tree, env)
    counters_before = write_counters(database_url)
    server = server_start(tree, env, args.port, args.workers)
    try:
        context = multiprocessing.get_context("fork")
        ready, results, start = context.Queue(), context.Queue(), context.Event()
        procs = [
            context.Process(
                target=sender,
                args=(args.port, token, fmt, payload["warm"][fmt][i], share, ready, start, results),
            )
            for i, share in enumerate(payload["shares"][fmt])
        ]
        for proc in procs:
            proc.start()
        for _ in procs:
            ready.get()
        with psycopg.connect(database_url, autocommit=True) as conn:
            # A server's autovacuum analyzes these tables after their first rows; this machine's
            # PostgreSQL runs without it, and unanalyzed tables get plans no server would use.
            conn.execute("ANALYZE traces_trace, traces_session, traces_span")
            count = "SELECT count(*) FROM traces_span"
            before = conn.execute(count).fetchone()[0]
            gunicorn_before = cpu_by_pid(tree_pids(server.pid))
            backends_before = cpu_by_pid(database_backends(conn))
            began = time.perf_counter()
            start.set()
            failed, analyze_cpu = results_wait(conn, results, len(procs), args.analyze == "growing")
            elapsed = time.perf_counter() - began
            for proc in procs:
                proc.join()
            stored = conn.execute(count).fetchone()[0] - before
            gunicorn_after = cpu_by_pid(tree_pids(server.pid))
            backends_after = cpu_by_pid(database_backends(conn))
        rss = tree_rss_kb(server.pid)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    time.sleep(1)  # the backends' exit flushes their statistics
    counters = write_counters(database_url)
    writes = {
        table: [after - counters_before.get(table, [0] * 4)[i] for i, after in enumerate(values)]
        for table, values in counters.items()
    }
    gunicorn = sum(cpu - gunicorn_before.get(pid, 0) for pid, cpu in gunicorn_after.items())
    database = sum(cpu - backends_before.get(pid, 0) for pid, cpu in backends_after.items())
    database += analyze_cpu  # autovacuum's work, done here by the bench's own backend
    return {
        "label": label,
        "format": fmt,
        "stored": stored,
        "failed": failed,
        "wall": elapsed,
        "gunicorn": gunicorn,
        "database": database,
        "per_cpu_second": stored / (gunicorn + database),
        "rss_mib": rss / 1024,
        "writes": writes,
    }


# How often the bench looks for tables grown past autovacuum's analyze threshold: a run lasts
# seconds, where a server's tables grow for months.
ANALYZE_CHECK_SECONDS = 0.25
# autovacuum_analyze_threshold and autovacuum_analyze_scale_factor, PostgreSQL's defaults.
ANALYZE_THRESHOLD_ROWS = 50
ANALYZE_SCALE_FACTOR = 0.1
GROWN = """
SELECT s.relname FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
WHERE s.relname = 'traces_session'
AND s.n_mod_since_analyze > %s + %s * greatest(c.reltuples, 0)
"""


def results_wait(conn, results, senders: int, analyze: bool) -> tuple[int, float]:
    """The requests the senders saw fail, once all have reported; and, with `analyze`, the CPU
    seconds spent meanwhile analyzing the session table each time it grows past autovacuum's
    threshold, as a server's autovacuum would (this machine's PostgreSQL runs without it).
    Without it the plans the server's backends keep for the foreign key checks stay those made
    from the few warm-up rows: each new trace's check of its session reads every session (a
    sequential scan), a cost that grows with the run. The statements ingest sends are planned
    afresh each time, from the tables' current size; the session table is the one a cached plan
    reads (analyzing the trace table too, a few times a second, cost more than it saved)."""
    failed = reported = 0
    own = [conn.info.backend_pid]
    analyze_cpu = 0.0
    while reported < senders:
        try:
            failed += results.get(timeout=ANALYZE_CHECK_SECONDS)
            reported += 1
        except queue.Empty:
            pass
        if not analyze:
            continue
        conn.execute("SELECT pg_stat_clear_snapshot()")
        grown = conn.execute(GROWN, [ANALYZE_THRESHOLD_ROWS, ANALYZE_SCALE_FACTOR]).fetchall()
        if grown:
            before = cpu_by_pid(own)[own[0]]
            conn.execute("ANALYZE " + ", ".join(name for (name,) in grown))
            analyze_cpu += cpu_by_pid(own)[own[0]] - before
    return failed, analyze_cpu


def payload_build(args) -> dict:
    """Each sender's recorded spans as bodies of both formats, plus its warm-up requests."""
    share = args.traces // args.senders
    payload = {"shares": {}, "warm": {}}
    spans = [record_spans(share, args.padding, i * share) for i in range(args.senders)]
    # A few requests each, so that every gunicorn worker has served one before the count starts.
    warm = [record_spans(WARM_UP_REQUESTS, args.padding, 10**6 + i) for i in range(args.senders)]
    # The ceiling reads protobuf whatever is served.
    for fmt in {"protobuf", *args.formats}:
        payload["shares"][fmt] = [bodies_encode(s, args.batch, fmt) for s in spans]
        payload["warm"][fmt] = [bodies_encode(s, SPANS_PER_TRACE, fmt) for s in warm]
    return payload


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def writes_print(label: str, fmt: str, runs: list[dict], stored: int) -> None:
    """Rows written and index pages touched per stored span, per table, over `runs`."""
    for table in ("traces_trace", "traces_session", "traces_span"):
        ins, upd, hot, blocks = (
            sum(r["writes"].get(table, [0] * 4)[i] for r in runs) for i in range(4)
        )
        print(
            f"{label} {fmt}: {table}: {ins / stored:.3f} inserts, {upd / stored:.3f} updates "
            f"({hot / upd if upd else 0:.0%} HOT), {blocks / stored:.2f} index pages touched "
            "per span"
        )


def summary(runs: list[dict], ceilings: list[float], args) -> None:
    def figures(label, fmt):
        return [r["per_cpu_second"] for r in runs if r["label"] == label and r["format"] == fmt]

    ceiling = statistics.mean(ceilings)
    print(
        f"\nceiling (decode + flatten + COPY, one process, best of {CEILING_PASSES} passes): "
        f"{ceiling:,.0f} spans per CPU-second"
    )
    labels = ["this"] + (["base"] if args.compare else [])
    for fmt in args.formats:
        for label in labels:
            values = figures(label, fmt)
            chosen = [r for r in runs if r["label"] == label and r["format"] == fmt]
            stored = sum(r["stored"] for r in chosen)
            per_span = {
                side: sum(r[side] for r in chosen) / stored * 1e6
                for side in ("gunicorn", "database")
            }
            print(
                f"{label} {fmt}: per span {per_span['gunicorn']:.0f} us of gunicorn + "
                f"{per_span['database']:.0f} us of PostgreSQL CPU"
            )
            print(
                f"{label} {fmt}: {statistics.mean(values):,.0f} spans per server CPU-second "
                f"(runs: {', '.join(f'{v:,.0f}' for v in values)}); "
                f"{statistics.mean(values) / ceiling:.0%} of the ceiling"
            )
            writes_print(label, fmt, chosen, stored)
        if args.compare:
            ratio = statistics.mean(figures("this", fmt)) / statistics.mean(figures("base", fmt))
            print(f"{fmt}: this / base = {ratio:.2f}x (base: {args.compare})")
    if len(args.formats) == 2:
        for label in labels:
            cost = statistics.mean(figures(label, "protobuf")) / statistics.mean(
                figures(label, "json")
            )
            print(f"{label}: OTLP/JSON costs {cost:.2f}x the server CPU per span of protobuf")
    print(f"load average after: {load()} on {os.cpu_count()} cores (the machine is shared)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=6000, help="of 11 spans; fewer vary more")
    parser.add_argument("--senders", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--batch", type=int, default=512, help="spans per export (SDK default)")
    parser.add_argument("--padding", type=int, default=600, help="chars of tool output per span")
    parser.add_argument("--repeat", type=int, default=1, help="alternating repetitions")
    parser.add_argument("--format", choices=["protobuf", "json", "both"], default="protobuf")
    parser.add_argument("--compare", help="a checkout of earlier code to measure alternately")
    parser.add_argument(
        "--masking", choices=["off", "builtin"], default="off", help="this tree's project masks"
    )
    parser.add_argument(
        "--analyze",
        choices=["once", "growing"],
        default="growing",
        help="analyze the session table as it grows, as a server's autovacuum would (the default), "
        "or the tables only once after warm-up (figures recorded before 2026-12-06's afternoon)",
    )
    parser.add_argument("--port", type=int, default=8617)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB))
    parser.add_argument("--var-dir", default="/tmp/evalsite-t-bench")
    args = parser.parse_args()
    args.formats = ["protobuf", "json"] if args.format == "both" else [args.format]
    trees = [(ROOT, "this")] + ([(Path(args.compare).resolve(), "base")] if args.compare else [])

    payload = payload_build(args)
    all_bodies = [body for share in payload["shares"]["protobuf"] for body in share]
    database_ensure(args.database_url)
    runs, ceilings = [], []
    for repetition in range(args.repeat):
        # A limit is the best it does: the fastest of a few passes, as one pass varies by a third.
        rate = max(
            ceiling_measure(args.database_url, all_bodies)["per_cpu_second"]
            for _ in range(CEILING_PASSES)
        )
        ceilings.append(rate)
        print(f"[{repetition + 1}] ceiling: {rate:,.0f} spans/CPU-s, load {load()}", flush=True)
        # Alternate which tree goes first so a change in the machine's load hits both alike.
        order = trees if repetition % 2 == 0 else trees[::-1]
        for tree, label in order:
            for fmt in args.formats:
                run = run_once(tree, label, fmt, args, payload)
                runs.append(run)
                print(
                    f"[{repetition + 1}] {label} {fmt}: stored {run['stored']} "
                    f"(failed {run['failed']}) in {run['wall']:.2f} s; CPU gunicorn "
                    f"{run['gunicorn']:.2f} s + PostgreSQL {run['database']:.2f} s = "
                    f"{run['per_cpu_second']:,.0f} spans/CPU-s; RSS {run['rss_mib']:.0f} MiB; "
                    f"load {load()}",
                    flush=True,
                )
    summary(runs, ceilings, args)


if __name__ == "__main__":
    main()
