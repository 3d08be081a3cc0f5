"""Judging under faults: provider errors, a worker SIGKILLed, the broker and the database
restarted mid-run.

Starts its own Redis server (loopback, the given port, nothing saved), the simulated judge with
a share of faulty answers (429/500/529 and hung calls), and two `celery worker` processes
(`--pool threads`, or `--pool gevent --passes-per-task 20`); judges fresh traces twice each;
SIGKILLs one worker and restarts Redis while passes are in flight; starts a replacement
worker; with --postgres-port, runs on a PostgreSQL server of its own
(bench/throwaway_postgres.py) and restarts it (immediate, as a crash would) later in the run;
runs the stale-pass sweep every few seconds as beat would; and stops by itself after --timeout
seconds whatever happened. Then it prints passes expected and stored, duplicates, passes
stuck unfinished, and provider calls paid for against the calls needed (one per distinct
request: identical requests are answered from the store).

    .venv/bin/python bench/faults.py --redis-port 6383 --database-url postgres://…/evalsite_faults
    .venv/bin/python bench/faults.py --redis-port 6383 --postgres-port 55437   # + a DB restart
    .venv/bin/python bench/faults.py --redis-port 6383 --pool gevent --concurrency 10 \
        --passes-per-task 20 --traces 1000
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.request import Request, urlopen

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.benchdb import database_ensure  # noqa: E402
from bench.judge_throughput import celery_worker_args, simulator_stats  # noqa: E402
from bench.throwaway_postgres import ThrowawayPostgres  # noqa: E402

# Short waits so faults resolve within the run's time bound (as the integration tests do).
WORKER_SETTINGS = {
    "JUDGE_RETRY_BASE_SECONDS": "0.2",
    "JUDGE_RETRY_MAX_SECONDS": "2",
    "JUDGE_TIMEOUT_SECONDS": "2",
    "JUDGE_CLAIM_LEASE_SECONDS": "8",
    "JUDGE_MAX_RETRIES": "8",
    "JUDGE_RATE_LIMIT_RPM": "1000000",
    "JUDGE_RATE_LIMIT_TPM": "10000000000",
    "LOG_LEVEL": "WARNING",
    "PYTHONUNBUFFERED": "1",
    "JUDGE_SIMULATED": "1",
}


def _args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=300)
    parser.add_argument("--fault-rate", type=float, default=0.2, help="share of faulty answers")
    parser.add_argument("--latency-ms", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16, help="pool size per worker")
    parser.add_argument("--pool", default="threads", choices=["threads", "gevent"])
    parser.add_argument(
        "--passes-per-task", type=int, default=1, help="JUDGE_PASSES_PER_TASK (20 with gevent)"
    )
    parser.add_argument("--timeout", type=float, default=420, help="stop after this many seconds")
    parser.add_argument("--redis-port", type=int, required=True, help="a free port of your own")
    parser.add_argument("--judge-port", type=int, default=8131)
    parser.add_argument(
        "--postgres-port",
        type=int,
        help="run on a PostgreSQL server of its own on this free port, and restart it mid-run",
    )
    parser.add_argument(
        "--database-url",
        default=os.environ.get(
            "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/evalsite_faults"
        ),
    )
    return parser.parse_args()


def port_free(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


class Stack:
    """Child processes of this run, all on 127.0.0.1, all stopped at the end."""

    def __init__(self, args, env: dict, var_dir: Path):
        self.args = args
        self.env = env
        self.var_dir = var_dir
        self.redis: subprocess.Popen | None = None
        self.workers: dict[str, subprocess.Popen] = {}
        self.simulator: subprocess.Popen | None = None
        self.postgres: ThrowawayPostgres | None = None

    def redis_start(self) -> None:
        self.redis = subprocess.Popen(
            ["redis-server", "--port", str(self.args.redis_port), "--bind", "127.0.0.1"]
            + ["--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while port_free(self.args.redis_port):
            if time.monotonic() > deadline:
                raise SystemExit("redis-server did not start")
            time.sleep(0.05)

    def redis_kill(self) -> None:
        self.redis.kill()  # no shutdown, no save: queued messages are gone
        self.redis.wait(timeout=10)

    def simulator_start(self) -> None:
        share = self.args.fault_rate
        self.simulator = subprocess.Popen(
            [sys.executable, "-m", "demo.simulator", "--port", str(self.args.judge_port)]
            + ["--latency-ms", str(self.args.latency_ms), "--flip-rate", "0.1"]
            # Three in four faults are error answers, one in four a call that hangs.
            + ["--error-rate", str(share * 0.75), "--timeout-rate", str(share * 0.25)]
            + ["--timeout-hang-s", "4"],
            cwd=ROOT,
            env=self.env,
            stderr=subprocess.DEVNULL,
        )

    def worker_start(self, name: str) -> None:
        log = (self.var_dir / f"{name}.log").open("ab")
        self.workers[name] = subprocess.Popen(
            [sys.executable, "-m", "celery"]
            + celery_worker_args(
                self.args.pool, self.args.concurrency, f"{name}@{socket.gethostname()}"
            ),
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )

    def worker_kill(self, name: str) -> None:
        self.workers[name].kill()  # SIGKILL: no warm shutdown, no acks
        self.workers[name].wait(timeout=10)

    def stop(self) -> None:
        processes = [*self.workers.values(), self.simulator, self.redis]
        for process in processes:
            if process is not None and process.poll() is None:
                process.terminate()
        for process in processes:
            if process is None:
                continue
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def _simulator_quiet(port: int) -> None:
    """No more faults: the run's last passes finish on a healthy provider."""
    body = json.dumps({"error_rate": 0, "timeout_rate": 0}).encode()
    request = Request(
        f"http://127.0.0.1:{port}/_simulator/knobs",
        data=body,
        headers={"Content-Type": "application/json"},
    )
    urlopen(request, timeout=5).read()


def main() -> None:
    args = _args()
    if not port_free(args.redis_port):
        raise SystemExit(f"port {args.redis_port} is taken: stop that server or pick another")
    var_dir = Path(tempfile.mkdtemp(prefix="evalsite-faults-"))
    postgres = None
    if args.postgres_port is not None:
        if not port_free(args.postgres_port):
            raise SystemExit(f"port {args.postgres_port} is taken: pick another")
        postgres = ThrowawayPostgres(args.postgres_port).start()
        args.database_url = postgres.database_create("evalsite_faults")
    env = {
        **os.environ,
        **WORKER_SETTINGS,
        "DATABASE_URL": args.database_url,
        "REDIS_URL": f"redis://127.0.0.1:{args.redis_port}/0",
        "EVALSITE_VAR_DIR": str(var_dir),
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{args.judge_port}",
        "DJANGO_SETTINGS_MODULE": "evalsite.settings",
        "JUDGE_PASSES_PER_TASK": str(args.passes_per_task),
    }
    env.pop("ANTHROPIC_API_KEY", None)
    env.pop("OPENAI_API_KEY", None)
    os.environ.update(env)
    stack = Stack(args, env, var_dir)
    stack.postgres = postgres
    try:
        if postgres is None:
            database_ensure(args.database_url)
        stack.redis_start()
        figures = _run(args, stack)
    finally:
        stack.stop()
        if postgres is not None:
            postgres.stop()
    _report(args, figures)


def _run(args, stack: Stack) -> dict:
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from django.db import InterfaceError, OperationalError, connection

    from judges.models import JudgeCalibration, JudgeConfig, JudgeRun, Rubric
    from judges.services import judge_run_start
    from judges.tasks import judgment_requeue_stale_task
    from tests.judges import sample_traces
    from traces.models import Project, Trace

    JudgeRun.objects.all().delete()
    Trace.objects.all().delete()
    project, _ = Project.objects.get_or_create(slug="faults", defaults={"name": "Faults"})
    traces = sample_traces.traces_mixed(args.traces, project=project)
    version = Rubric.objects.get(name="Tool-call decision accuracy").versions.get(number=1)
    config = JudgeConfig.objects.get(name="default")
    JudgeCalibration.objects.filter(rubric_version=version, config=config).delete()

    stack.simulator_start()
    stack.worker_start("faults1")
    stack.worker_start("faults2")
    time.sleep(8)  # both workers connected and waiting
    started = time.monotonic()
    run = judge_run_start(rubric_version=version, config=config, traces=traces)
    events: list[str] = []
    expected = len(traces) * config.passes
    killed = restarted = quiet = database_restarted = False
    last_sweep = time.monotonic()
    while time.monotonic() - started < args.timeout:
        try:
            finished = judgments_finished(run)
        except (OperationalError, InterfaceError):
            connection.close()  # the database is restarting: this process reconnects next turn
            time.sleep(0.5)
            continue
        restart_due = restarted and stack.postgres is not None and finished >= expected * 0.75
        if restart_due and not database_restarted:
            in_flight = _running(run)
            stack.postgres.restart("immediate")
            database_restarted = True
            events.append(
                f"{time.monotonic() - started:.1f}s database restarted (immediate) at {finished} "
                f"passes done, {in_flight} passes running"
            )
            connection.close()
            continue
        if not killed and finished >= expected * 0.25:
            in_flight = _running(run)
            stack.worker_kill("faults1")
            killed = True
            events.append(
                f"{time.monotonic() - started:.1f}s SIGKILL worker 1 at {finished} passes done, "
                f"{in_flight} calls in flight on both workers (answers to the killed one are "
                "paid and lost: the pass runs again)"
            )
        if killed and not restarted and finished >= expected * 0.5:
            stack.redis_kill()
            time.sleep(3)
            stack.redis_start()
            stack.worker_start("faults3")
            restarted = True
            events.append(f"{time.monotonic() - started:.1f}s broker restarted at {finished}")
        if not quiet and time.monotonic() - started > args.timeout * 0.6:
            _simulator_quiet(args.judge_port)
            quiet = True
            events.append(f"{time.monotonic() - started:.1f}s faults off (time bound near)")
        if time.monotonic() - last_sweep > 5:
            last_sweep = time.monotonic()
            try:
                judgment_requeue_stale_task()  # what beat runs every 30 s
            except Exception as exc:  # noqa: BLE001 - the broker may be down this very second
                events.append(f"sweep failed: {type(exc).__name__}")
        try:
            run.refresh_from_db()
        except (OperationalError, InterfaceError):
            connection.close()
            continue
        if run.status == "done":
            break
        time.sleep(0.5)
    elapsed = time.monotonic() - started
    return {
        "elapsed": elapsed,
        "events": events,
        "stats": simulator_stats(args.judge_port),
        **run_integrity_counts(run, expected),
    }


def _running(run) -> int:
    from judges.models import Judgment, JudgmentStatus

    return Judgment.objects.filter(run=run, status=JudgmentStatus.RUNNING).count()


def judgments_finished(run) -> int:
    from judges.models import Judgment, JudgmentStatus

    return Judgment.objects.filter(
        run=run, status__in=[JudgmentStatus.DONE, JudgmentStatus.FAILED]
    ).count()


def run_integrity_counts(run, expected: int) -> dict:
    from django.db.models import Count

    from judges.models import Judgment, JudgmentStatus, Verdict
    from reviews.models import ReviewItem

    passes = Judgment.objects.filter(run=run)
    duplicate_passes = (
        passes.values("trace", "pass_index").annotate(n=Count("pk")).filter(n__gt=1).count()
    )
    verdicts = Verdict.objects.filter(run=run)
    duplicate_verdicts = verdicts.values("trace").annotate(n=Count("pk")).filter(n__gt=1).count()
    duplicate_items = (
        ReviewItem.objects.filter(verdict__run=run)
        .values("verdict", "reason")
        .annotate(n=Count("pk"))
        .filter(n__gt=1)
        .count()
    )
    needed = passes.filter(status=JudgmentStatus.DONE).values("request_hash").distinct().count()
    return {
        "run_status": run.status,
        "expected": expected,
        "stored": passes.count(),
        "done": passes.filter(status=JudgmentStatus.DONE).count(),
        "failed": passes.filter(status=JudgmentStatus.FAILED).count(),
        "stuck": passes.exclude(status__in=[JudgmentStatus.DONE, JudgmentStatus.FAILED]).count(),
        "duplicates": duplicate_passes + duplicate_verdicts + duplicate_items,
        "verdicts": verdicts.count(),
        "from_store": passes.filter(served_from_cache=True).count(),
        "needed": needed,
    }


def _report(args, figures: dict) -> None:
    stats = figures["stats"]
    faults = sum(value for key, value in stats.items() if key.startswith("errors_"))
    faults += stats.get("timeouts", 0)
    paid = stats.get("answers", 0)
    for event in figures["events"]:
        print(f"  {event}")
    print(
        f"{args.pool} pool, {args.concurrency} x {args.passes_per_task} passes a task a worker; "
        f"{args.traces} traces x 2 passes, {args.fault_rate:.0%} provider faults, "
        f"{args.latency_ms} ms latency, run {figures['run_status']} in {figures['elapsed']:.1f}s "
        f"(load average {os.getloadavg()[0]:.2f})"
    )
    print(
        f"passes expected / stored: {figures['expected']} / {figures['stored']} "
        f"(done {figures['done']}, failed {figures['failed']}); verdicts {figures['verdicts']}"
    )
    print(f"duplicates: {figures['duplicates']}   stuck: {figures['stuck']}")
    print(
        f"provider calls: {stats.get('requests', 0)} made, {faults} faulty, "
        f"paid (answered) {paid} vs needed {figures['needed']} "
        f"(passes answered from the store: {figures['from_store']})"
    )


if __name__ == "__main__":
    main()
