"""OTLP ingestion throughput: recorded OpenTelemetry SDK spans POSTed to gunicorn + PostgreSQL.

Starts gunicorn on its own PostgreSQL database, records travel-agent traces (11 spans each,
tool outputs of realistic size) with the OpenTelemetry SDK, encodes them with the SDK's own
OTLP encoder (protobuf, or OTLP/JSON as collectors write it), POSTs them from several processes
after a few warm-up requests each, and prints spans stored per CPU-second of gunicorn +
PostgreSQL.

The same bodies also go through a ceiling of our own (bench/ingest_ceiling.py: decode, flatten
and COPY in one process); evalsite's figure is printed as a share of it. With --compare DIR
the same run also serves the code checked out in DIR (a git worktree of an earlier commit)
and prints the ratio between them. With --masking builtin this tree's project masks with every
built-in detector (traces.masking); `--compare .` then measures masking's cost against the
same code without it. The session table is analyzed as it grows, as a server's autovacuum
would (results_wait says why); --analyze once only after warm-up.

The measurement is paired in time (bench/paired_rounds.py): every tree is served once, and
over many short rounds the ceiling and each tree (and format) store the round's slice of the
bodies, one after the other in an order rotated round by round; a round's ratios (tree /
ceiling, this / base, protobuf / OTLP/JSON) are summed up by their median over the rounds, with
a 95% interval. On this shared machine a process's CPU a span moves by a third with other
sessions' load, within seconds; the contenders of a round share it. --repeat N runs the design
before it instead: N whole runs of each tree, a fresh server each, the ceiling the best of
three passes over all bodies before each repetition.

    .venv/bin/python bench/ingest.py --traces 6000 --batch 64 --compare ../evalsite-base
    .venv/bin/python bench/ingest.py --traces 12000 --format both
    .venv/bin/python bench/ingest.py --masking builtin --compare .
    .venv/bin/python bench/ingest.py --padding 2700 --history --compare ../evalsite-base

--history puts the whole conversation so far on each chat span, as instrumentations capturing
content do: rows past a page, which PostgreSQL compresses, where the default spans stay under it.
"""

import argparse
import functools
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

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.benchdb import database_ensure  # noqa: E402
from bench.ingest_ceiling import CeilingTable, ceiling_measure  # noqa: E402
from bench.paired_rounds import (  # noqa: E402
    cpu_seconds,
    round_order,
    round_slices,
    rounds_summary,
    summary_text,
)
from bench.served import wait_answered  # noqa: E402

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/evalsite_t_bench"
SPANS_PER_TRACE = 11
CEILING_PASSES = 3
# Paired rounds a run makes by default, after its warm-up round.
PAIRED_ROUNDS = 60
SIDES = ("gunicorn", "database")
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
    url = f"http://127.0.0.1:{port}/login/"
    try:
        wait_answered(process, url, time.perf_counter(), 30, "gunicorn")
    except RuntimeError:
        process.kill()
        raise SystemExit("gunicorn did not start") from None
    return process


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
    """User + system CPU seconds of each live process."""
    seconds = {pid: cpu_seconds(pid) for pid in pids}
    return {pid: cpu for pid, cpu in seconds.items() if cpu is not None}


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


def record_spans(traces: int, padding: int, offset: int, history: bool = False):
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
        otel_agents.travel_agent_run(tracer, padding=padding, run=offset + run, history=history)
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


def export_poster(port: int, token: str, fmt: str):
    """A function that POSTs one export request body of `fmt` and says whether it was stored."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Content-Type": MEDIA[fmt], "Authorization": f"Bearer {token}"}

    def post(body) -> bool:
        connection.request("POST", "/v1/traces", body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status == 200

    return post


def sender(port, token, fmt, warm_up, bodies, ready, start, results):
    """One agent process: warm up, wait for the start, then POST its export requests."""
    post = export_poster(port, token, fmt)
    for body in warm_up:
        post(body)
    ready.put(True)
    start.wait()
    failed = sum(not post(body) for body in bodies)
    results.put(failed)


def round_sender(port, token, fmt, warm_up, rounds, ready, go, results):
    """One agent process of the paired rounds: warm up, then for each round index `go` gives,
    POST that round's bodies and report the failures; None ends it."""
    post = export_poster(port, token, fmt)
    for body in warm_up:
        post(body)
    ready.put(True)
    while (round_index := go.get()) is not None:
        results.put(sum(not post(body) for body in rounds[round_index]))


class ServedTree:
    """A tree served from its own checkout on its own database: set up with the tree's code, its
    gunicorn started, watched through a connection of the bench's own."""

    def __init__(self, tree: Path, label: str, port: int, args):
        self.label = label
        self.analyze = args.analyze == "growing"
        self.database_url = args.database_url + ("" if label == "this" else "_base")
        database_ensure(self.database_url)
        env = env_for(self.database_url, f"{args.var_dir}-{label}")
        env["BENCH_MASKING"] = args.masking if label == "this" else "off"
        self.token = tree_setup(tree, env)
        self.counters_before = write_counters(self.database_url)
        self.server = server_start(tree, env, port, args.workers)
        self.conn = None

    def watch(self) -> None:
        """Connect to the tree's database once its senders have warmed it up."""
        self.conn = psycopg.connect(self.database_url, autocommit=True)
        # A server's autovacuum analyzes these tables after their first rows; this machine's
        # PostgreSQL runs without it, and unanalyzed tables get plans no server would use.
        self.conn.execute("ANALYZE traces_trace, traces_session, traces_span")

    def burst(self, release, results, senders: int) -> dict:
        """Call `release` to let the senders POST, wait for their `senders` reports, and measure
        the spans stored and the CPU of gunicorn and of the database's backends meanwhile."""
        before = self.stored_total()
        gunicorn_before = cpu_by_pid(tree_pids(self.server.pid))
        backends_before = cpu_by_pid(database_backends(self.conn))
        began = time.perf_counter()
        release()
        failed, analyze_cpu = results_wait(self.conn, results, senders, self.analyze)
        elapsed = time.perf_counter() - began
        gunicorn_after = cpu_by_pid(tree_pids(self.server.pid))
        backends_after = cpu_by_pid(database_backends(self.conn))
        stored = self.stored_total() - before
        gunicorn = sum(cpu - gunicorn_before.get(pid, 0) for pid, cpu in gunicorn_after.items())
        database = sum(cpu - backends_before.get(pid, 0) for pid, cpu in backends_after.items())
        database += analyze_cpu  # autovacuum's work, done here by the bench's own backend
        return {
            "label": self.label,
            "stored": stored,
            "failed": failed,
            "wall": elapsed,
            "gunicorn": gunicorn,
            "database": database,
            "per_cpu_second": stored / (gunicorn + database),
        }

    def stored_total(self) -> int:
        """Spans in the tree's database, warm-up requests' too."""
        return self.conn.execute("SELECT count(*) FROM traces_span").fetchone()[0]

    def rss_mib(self) -> float:
        return tree_rss_kb(self.server.pid) / 1024

    def stop(self) -> dict[str, list[int]]:
        """Stop the server; the rows written and index pages touched since the setup, per table
        (WRITE_COUNTERS)."""
        if self.conn is not None:
            self.conn.close()
        os.killpg(self.server.pid, signal.SIGTERM)
        self.server.wait(timeout=30)
        time.sleep(1)  # the backends' exit flushes their statistics
        counters = write_counters(self.database_url)
        return {
            table: [
                after - self.counters_before.get(table, [0] * 4)[i]
                for i, after in enumerate(values)
            ]
            for table, values in counters.items()
        }


def run_once(tree: Path, label: str, fmt: str, args, payload: dict) -> dict:
    """Serve `tree`, send every body of `fmt`, and measure the server's CPU per stored span."""
    served = ServedTree(tree, label, args.port, args)
    try:
        context = multiprocessing.get_context("fork")
        ready, results, start = context.Queue(), context.Queue(), context.Event()
        token = served.token
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
        served.watch()
        run = served.burst(start.set, results, len(procs))
        for proc in procs:
            proc.join()
        run.update(format=fmt, rss_mib=served.rss_mib())
    finally:
        writes = served.stop()
    run["writes"] = writes
    return run


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
    spans = [
        record_spans(share, args.padding, i * share, args.history) for i in range(args.senders)
    ]
    # A few requests each, so that every gunicorn worker has served one before the count starts.
    warm = [
        record_spans(WARM_UP_REQUESTS, args.padding, 10**6 + i, args.history)
        for i in range(args.senders)
    ]
    # The ceiling reads protobuf whatever is served.
    for fmt in {"protobuf", *args.formats}:
        payload["shares"][fmt] = [bodies_encode(s, args.batch, fmt) for s in spans]
        payload["warm"][fmt] = [bodies_encode(s, SPANS_PER_TRACE, fmt) for s in warm]
    return payload


def rounds_payload_build(args) -> dict:
    """For the paired rounds: each sender's bodies of each format cut into a warm-up round and
    args.rounds counted ones, plus its warm-up requests. Each format has spans of its own,
    recorded alike (both go to one database per tree, where a trace sent twice would be another
    request's work)."""
    share = args.traces // args.senders
    payload = {"rounds": {}, "warm": {}}
    for index, fmt in enumerate(args.formats):
        first = index * 2 * 10**6  # run numbers, which name the sessions
        spans = [
            record_spans(share, args.padding, first + i * share, args.history)
            for i in range(args.senders)
        ]
        warm = [
            record_spans(WARM_UP_REQUESTS, args.padding, first + 10**6 + i, args.history)
            for i in range(args.senders)
        ]
        try:
            payload["rounds"][fmt] = [
                round_slices(bodies_encode(s, args.batch, fmt), args.rounds + 1) for s in spans
            ]
        except ValueError as error:
            raise SystemExit(f"a sender's bodies per round: {error}; raise --traces") from error
        payload["warm"][fmt] = [bodies_encode(s, SPANS_PER_TRACE, fmt) for s in warm]
    if "protobuf" not in args.formats:  # the ceiling reads protobuf, of the same spans
        payload["rounds"]["protobuf"] = [
            round_slices(bodies_encode(s, args.batch, "protobuf"), args.rounds + 1) for s in spans
        ]
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
            per_span = {side: sum(r[side] for r in chosen) / stored * 1e6 for side in SIDES}
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


def repetitions_run(trees, args) -> None:
    """The design before paired rounds: per repetition, the ceiling's best of a few passes over
    all bodies, then each tree served afresh for all of them."""
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


def release_round(gos, round_index: int) -> None:
    for go in gos:
        go.put(round_index)


def paired_run(trees, args) -> None:
    """Serve every tree once, then over args.rounds + 1 rounds (the first warms up) measure the
    ceiling and each tree on the round's slice of the bodies, in an order rotated round by
    round."""
    payload = rounds_payload_build(args)
    ceiling_url = args.database_url + "_ceiling"  # its connection stays open: not a tree's
    database_ensure(ceiling_url)
    ceiling = CeilingTable(ceiling_url)
    context = multiprocessing.get_context("fork")
    served, senders, records = {}, {}, []
    try:
        for index, (tree, label) in enumerate(trees):
            port = args.port + index
            served[label] = ServedTree(tree, label, port, args)
            ready = context.Queue()
            for fmt in args.formats:
                results, gos, procs = context.Queue(), [], []
                for warm, rounds in zip(payload["warm"][fmt], payload["rounds"][fmt], strict=True):
                    gos.append(context.Queue())
                    sender_args = (port, served[label].token, fmt, warm, rounds, ready, gos[-1])
                    procs.append(context.Process(target=round_sender, args=(*sender_args, results)))
                    procs[-1].start()
                senders[label, fmt] = (procs, gos, results)
            for _ in range(len(args.formats) * args.senders):
                ready.get()
            served[label].watch()
        contenders = [("ceiling", "protobuf")]
        contenders += [(label, fmt) for _, label in trees for fmt in args.formats]
        for round_index in range(args.rounds + 1):
            for label, fmt in round_order(contenders, round_index):
                if label == "ceiling":
                    shares = payload["rounds"]["protobuf"]
                    measured = ceiling.measure([b for s in shares for b in s[round_index]])
                    record = {"label": label, "stored": measured["spans"], **measured}
                else:
                    _, gos, results = senders[label, fmt]
                    release = functools.partial(release_round, gos, round_index)
                    record = served[label].burst(release, results, len(gos))
                record.update(format=fmt, round=round_index, load=os.getloadavg()[0])
                records.append(record)
            round_print([r for r in records if r["round"] == round_index])
        rss = {label: each.rss_mib() for label, each in served.items()}
        totals = {label: each.stored_total() for label, each in served.items()}
    finally:
        for procs, gos, _ in senders.values():
            for go in gos:
                go.put(None)
            for proc in procs:
                proc.join(timeout=30)
                if proc.is_alive():
                    proc.terminate()
        writes = {label: each.stop() for label, each in served.items()}
        ceiling.close()
    paired_summary(records, {"writes": writes, "totals": totals, "rss": rss}, args)


def round_print(records: list[dict]) -> None:
    """One line a round: each contender's spans per CPU-second, the trees' share of the
    ceiling's, and the load."""
    ceiling = next(r["per_cpu_second"] for r in records if r["label"] == "ceiling")
    parts = []
    for record in records:
        figure = f"{record['label']} {record['format']} {record['per_cpu_second']:,.0f}"
        if record["label"] != "ceiling":
            figure += f" ({record['per_cpu_second'] / ceiling:.0%})"
            figure += f", {record['failed']} failed" if record["failed"] else ""
        parts.append(figure)
    round_index = records[0]["round"]
    name = "warm-up" if round_index == 0 else str(round_index)
    print(f"[{name}] {'; '.join(parts)}; load {records[-1]['load']:.1f}", flush=True)


def paired_summary(records: list[dict], served: dict, args) -> None:
    """Per format: the median over rounds of each tree's share of the ceiling, of this / base
    and of protobuf / OTLP/JSON, each with its interval; per span CPU summed over the rounds."""
    counted = {(r["label"], r["format"], r["round"]): r for r in records if r["round"] > 0}
    rounds = range(1, args.rounds + 1)
    labels = ["this"] + (["base"] if args.compare else [])

    def rates(label, fmt, side=None):
        """Spans per CPU-second of each round, of server CPU or only `side`'s."""
        chosen = [counted[label, fmt, i] for i in rounds]
        if side is None:
            return [r["per_cpu_second"] for r in chosen]
        return [r["stored"] / r[side] for r in chosen]

    def per_round(numerator, denominator):
        return [n / d for n, d in zip(rates(*numerator), rates(*denominator), strict=True)]

    side_names = {"gunicorn": "gunicorn's CPU alone", "database": "PostgreSQL's CPU alone"}

    ceiling = rates("ceiling", "protobuf")
    spans = statistics.mean(counted["ceiling", "protobuf", i]["stored"] for i in rounds)
    loads = [r["load"] for r in records]
    print(
        f"\n{args.rounds} paired rounds after a warm-up round, {spans:,.0f} spans a contender a "
        "round, the order rotated; medians over the rounds:"
    )
    print(
        f"ceiling (decode + flatten + COPY, one process, the round's protobuf bodies): "
        f"{summary_text(rounds_summary(ceiling), ',.0f')} spans per CPU-second"
    )
    for fmt in args.formats:
        for label in labels:
            chosen = [counted[label, fmt, i] for i in rounds]
            stored = sum(r["stored"] for r in chosen)
            gunicorn, database = (sum(r[side] for r in chosen) / stored * 1e6 for side in SIDES)
            print(
                f"{label} {fmt}: per span {gunicorn:.0f} us of gunicorn + {database:.0f} us of "
                f"PostgreSQL CPU; {statistics.median(rates(label, fmt)):,.0f} spans per server "
                f"CPU-second (median); RSS {served['rss'][label]:.0f} MiB"
            )
            share = rounds_summary(per_round((label, fmt), ("ceiling", "protobuf")))
            print(f"{label} {fmt}: share of the ceiling {summary_text(share, '.1%')}")
        if args.compare:
            ratio = rounds_summary(per_round(("this", fmt), ("base", fmt)))
            print(f"{fmt}: this / base = {summary_text(ratio, '.3f')} (base: {args.compare})")
            for side, name in side_names.items():
                ratio = rounds_summary(per_round(("this", fmt, side), ("base", fmt, side)))
                print(f"{fmt}: this / base, {name}: {summary_text(ratio, '.3f')}")
    if len(args.formats) == 2:
        for label in labels:
            cost = rounds_summary(per_round((label, "protobuf"), (label, "json")))
            print(
                f"{label}: OTLP/JSON costs {summary_text(cost, '.3f')} times the server CPU per "
                "span of protobuf"
            )
    for label in labels:  # over all the tree's requests, warm-up ones too
        runs = [{"writes": served["writes"][label]}]
        writes_print(label, "+".join(args.formats), runs, served["totals"][label])
    print(
        f"load average {min(loads):.1f}-{max(loads):.1f} over the rounds, {load()} after, on "
        f"{os.cpu_count()} cores (the machine is shared)"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=6000, help="of 11 spans; fewer vary more")
    parser.add_argument("--senders", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--batch", type=int, default=512, help="spans per export (SDK default)")
    parser.add_argument("--padding", type=int, default=600, help="chars of tool output per span")
    parser.add_argument(
        "--history",
        action="store_true",
        help="chat spans carry the whole conversation so far (2-14 kB with --padding 2700)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        help="the design before paired rounds: this many whole runs per tree, alternating, "
        "the ceiling measured before each",
    )
    parser.add_argument(
        "--rounds", type=int, help=f"paired rounds (the default design, {PAIRED_ROUNDS} rounds)"
    )
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

    if args.repeat is not None and args.rounds is not None:
        parser.error("--repeat runs the design before paired rounds; --rounds the paired one")
    if args.repeat is not None:
        repetitions_run(trees, args)
    else:
        args.rounds = args.rounds or PAIRED_ROUNDS
        paired_run(trees, args)


if __name__ == "__main__":
    main()
