"""OTLP ingestion throughput: the real OpenTelemetry SDK exporter against gunicorn + PostgreSQL.

Starts gunicorn on its own PostgreSQL database, records travel-agent traces (11 spans each,
tool outputs of realistic size) with the SDK, sends them with OTLPSpanExporter from several
processes, and prints spans stored per second and the server's memory (RSS, all workers).

    .venv/bin/python bench/ingest.py --traces 3000 --senders 2 --workers 2
"""

import argparse
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.request import urlopen

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/evalsite_t_bench"
SPANS_PER_TRACE = 11


def env_for(args) -> dict:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=args.database_url,
        EVALSITE_VAR_DIR=args.var_dir,
        DJANGO_SETTINGS_MODULE="evalsite.settings",
        LOG_LEVEL="WARNING",
        ALLOWED_HOSTS="127.0.0.1,localhost",
    )
    return env


def database_ensure(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


def django_setup(args) -> str:
    """Migrate, empty the trace tables, and return an API token for an annotator."""
    os.environ.update(env_for(args))
    import django

    django.setup()
    from django.contrib.auth.models import Group
    from django.core.management import call_command
    from django.db import connection

    from accounts.models import ApiToken
    from accounts.roles import ANNOTATOR
    from tests.factories import UserFactory
    from traces.models import Trace

    call_command("migrate", verbosity=0)
    # TRUNCATE, not DELETE: dead rows left by an earlier run would slow this one down.
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {Trace._meta.db_table} CASCADE")
    user = UserFactory(username="bench-agent")
    user.groups.add(Group.objects.get_or_create(name=ANNOTATOR)[0])
    return ApiToken.generate(user, "bench")[1]


def span_count() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM traces_span")
        return cursor.fetchone()[0]


def server_start(args) -> subprocess.Popen:
    command = [
        str(ROOT / ".venv/bin/gunicorn"),
        "evalsite.wsgi",
        "--bind",
        f"127.0.0.1:{args.port}",
        "--workers",
        str(args.workers),
        "--log-level",
        "warning",
        "--timeout",
        "120",
    ]
    process = subprocess.Popen(command, cwd=ROOT, env=env_for(args), start_new_session=True)
    for _ in range(100):
        try:
            urlopen(f"http://127.0.0.1:{args.port}/login/", timeout=1)
            return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("gunicorn did not start")


def tree_rss_kb(pid: int) -> int:
    """RSS of a process and its children (gunicorn master and workers)."""
    total = 0
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(p) for p in children.read_text().split()]
    for each in pids:
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


def cpu_seconds(pids) -> float:
    """User + system CPU time of processes, from /proc (clock ticks)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / ticks


def database_backend_pids() -> list[int]:
    """PostgreSQL backends serving the bench database, other than this process's own."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        )
        return [row[0] for row in cursor.fetchall()]


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


def sender(args, token, index, ready, start, results):
    """One agent process: record its traces first, then export them in SDK-sized batches."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult

    share = args.traces // args.senders
    spans = record_spans(share, args.padding, index * share)
    exporter = OTLPSpanExporter(
        endpoint=f"http://127.0.0.1:{args.port}/v1/traces",
        headers={"authorization": f"Bearer {token}"},
        timeout=120,
    )
    batches = [spans[i : i + args.batch] for i in range(0, len(spans), args.batch)]
    ready.put(index)
    start.wait()
    failed = 0
    cpu_before = time.process_time()
    for batch in batches:
        if exporter.export(batch) != SpanExportResult.SUCCESS:
            failed += len(batch)
    results.put((len(spans), failed, time.process_time() - cpu_before))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=2000)
    parser.add_argument("--senders", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--batch", type=int, default=512, help="spans per export (SDK default)")
    parser.add_argument("--padding", type=int, default=600, help="chars of tool output per span")
    parser.add_argument("--port", type=int, default=8617)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB))
    parser.add_argument("--var-dir", default="/tmp/evalsite-t-bench")
    args = parser.parse_args()

    database_ensure(args.database_url)
    token = django_setup(args)
    server = server_start(args)
    peak_rss = 0
    stop = threading.Event()

    def watch():
        nonlocal peak_rss
        while not stop.is_set():
            peak_rss = max(peak_rss, tree_rss_kb(server.pid))
            time.sleep(0.2)

    try:
        context = multiprocessing.get_context("fork")
        ready, results, start = context.Queue(), context.Queue(), context.Event()
        procs = [
            context.Process(target=sender, args=(args, token, i, ready, start, results))
            for i in range(args.senders)
        ]
        for proc in procs:
            proc.start()
        for _ in procs:
            ready.get()
        idle_rss = tree_rss_kb(server.pid)
        threading.Thread(target=watch, daemon=True).start()
        before = span_count()
        server_cpu_before = cpu_seconds(tree_pids(server.pid))
        began = time.perf_counter()
        start.set()
        sent = failed = 0
        sender_cpu = 0.0
        for _ in procs:
            count, bad, cpu = results.get()
            sent, failed, sender_cpu = sent + count, failed + bad, sender_cpu + cpu
        elapsed = time.perf_counter() - began
        for proc in procs:
            proc.join()
        stored = span_count() - before
        server_cpu = cpu_seconds(tree_pids(server.pid)) - server_cpu_before
        # Backends are opened by the workers during the run, so their whole CPU time counts.
        database_cpu = cpu_seconds(database_backend_pids())
        stop.set()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)

    rate = stored / elapsed
    print(f"spans sent {sent}, failed {failed}, stored {stored} in {elapsed:.2f} s")
    print(f"ingest rate: {rate:,.0f} spans/s ({rate / SPANS_PER_TRACE:,.0f} traces/s)")
    print(f"target 10,000 spans/s: {rate / 10_000:.2f}x of target")
    print(
        f"server RSS: {idle_rss / 1024:.0f} MiB idle, {peak_rss / 1024:.0f} MiB peak "
        f"({args.workers} gunicorn workers)"
    )
    per_core = stored / (server_cpu + database_cpu) if server_cpu + database_cpu else 0
    print(
        f"CPU spent: gunicorn {server_cpu:.2f} s, PostgreSQL backends {database_cpu:.2f} s, "
        f"exporting agents {sender_cpu:.2f} s, wall {elapsed:.2f} s"
    )
    print(
        f"spans per CPU-second (server + database): {per_core:,.0f}; "
        f"on {os.cpu_count()} uncontended cores that is about {per_core * os.cpu_count():,.0f} "
        f"spans/s before the sending agents take their share"
    )
    print(
        f"load average after: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores "
        "(the machine is shared; other processes take CPU during the run)"
    )


if __name__ == "__main__":
    main()
