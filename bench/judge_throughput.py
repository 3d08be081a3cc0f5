"""Judging throughput: judgments per second through the real stack, this code against an
earlier commit's, in the same run.

Starts the simulated judge (1 s latency by default) and, per phase, two Celery worker
processes from one tree: `before` (a commit, `main` by default, unpacked with `git archive`,
its workers at 96 threads) and `now` (this tree, a gevent pool of 100 tasks of 20 passes
each, as docs/judging.md recommends). Each phase judges a fresh set of traces twice each and prints
judgments/s over the whole run and while the pipeline is full (the middle 80% of completions),
the workers' CPU per judgment and largest resident memory (with `--rss-every N`, also in each
stretch of N judgments stored: whether memory grows with a run's length), the passes in flight
at most and the load average. Use PostgreSQL and Redis of your own (the defaults are
evalsite_bench and db 9):

    .venv/bin/python bench/judge_throughput.py --traces 1000 --runs 3
    .venv/bin/python bench/judge_throughput.py --latency-ms 10000 --traces 4000 --before ''
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
from urllib.request import urlopen

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script, or imported as bench.judge_throughput

from bench.benchdb import database_ensure  # noqa: E402
from bench.trees import tree_at  # noqa: E402

TARGET = 100.0


def stack_arguments(parser: argparse.ArgumentParser) -> None:
    """Where the measured stack keeps its data and the simulated judge listens."""
    parser.add_argument(
        "--database-url",
        default=os.environ.get(
            "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/evalsite_bench"
        ),
    )
    parser.add_argument(
        "--redis-url", default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/9")
    )
    parser.add_argument("--port", type=int, default=8799)


def stack_env(args, var_dir: Path, **settings: str) -> dict:
    """The environment of the measured stack's processes: these `settings` on top of its
    database, Redis, var folder and simulated judge, which stays quiet and unthrottled."""
    return {
        **os.environ,
        "DATABASE_URL": args.database_url,
        "REDIS_URL": args.redis_url,
        "EVALSITE_VAR_DIR": str(var_dir),
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{args.port}",
        "JUDGE_SIMULATED": "1",
        "JUDGE_RATE_LIMIT_TPM": "10000000000",
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
        "DB_POOL_TIMEOUT": "120",
        **settings,
    }


def _args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=1, help="before/now pairs to measure")
    parser.add_argument("--before", default="main", help="the earlier commit; '' skips it")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--concurrency", type=int, default=100, help="pool size per worker, now (the guide's)"
    )
    parser.add_argument("--pool", default="gevent", choices=["gevent", "threads"])
    parser.add_argument(
        "--passes-per-task",
        type=int,
        default=20,
        help="JUDGE_PASSES_PER_TASK, now: calls in flight = workers x concurrency x this",
    )
    parser.add_argument("--before-concurrency", type=int, default=96)
    parser.add_argument("--before-pool", default="threads", choices=["gevent", "threads"])
    parser.add_argument(
        "--before-passes-per-task", type=int, default=1, help="JUDGE_PASSES_PER_TASK, before"
    )
    parser.add_argument("--latency-ms", type=int, default=1000)
    parser.add_argument(
        "--db-pool",
        type=int,
        default=24,
        help="DB_POOL_MAX_SIZE of each worker (both trees); a gevent worker's passes share it",
    )
    parser.add_argument("--flip-rate", type=float, default=0.12)
    parser.add_argument(
        "--rate-limit-rpm",
        type=int,
        default=1_000_000,
        help="JUDGE_RATE_LIMIT_RPM for the workers (the default never binds)",
    )
    stack_arguments(parser)
    parser.add_argument(
        "--rss-every",
        type=int,
        default=0,
        help="print the workers' largest RSS in each stretch of this many judgments stored "
        "(memory over a run's length); 0 prints none",
    )
    parser.add_argument(
        "--calibrating",
        action="store_true",
        help="judge with a version still in calibration (the default is an approved one)",
    )
    parser.add_argument(
        "--checked",
        action="store_true",
        help="check each trace's red flags before the run, as its completion does (the default "
        "leaves them to the pass that writes the verdict)",
    )
    return parser.parse_args()


def django_migrated(env: dict, database_url: str) -> None:
    """This process runs Django on the bench's database, created and migrated; no real judge."""
    env.pop("ANTHROPIC_API_KEY", None)
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    if database_url.startswith("postgres"):
        database_ensure(database_url)

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def request_leases_clear(redis_url: str) -> None:
    """A killed worker leaves its request leases until they expire; the next phase's traces may
    repeat its prompts (sample traces number their tickets from the same start in each process),
    and a pass finding its prompt's lease taken waits for it to expire."""
    import redis

    client = redis.Redis.from_url(redis_url)
    for key in client.scan_iter(match="*judge-request-lease*", count=1000):
        client.delete(key)


def fresh_phase_start(redis_url: str, n_traces: int):
    """A clean slate for one phase of a judge bench, and its work: fresh traces (an identical
    prompt judged before would come from the cache), the rubric version and the config."""
    from evalsite.celery import app
    from judges.models import JudgeConfig, JudgeRun, Rubric
    from tests.judges import sample_traces
    from traces.models import Project, Trace

    JudgeRun.objects.all().delete()
    Trace.objects.all().delete()
    app.control.purge()
    request_leases_clear(redis_url)
    project, _ = Project.objects.get_or_create(slug="bench", defaults={"name": "Bench"})
    traces = sample_traces.traces_mixed(n_traces, project=project)
    version = Rubric.objects.get(name="Tool-call decision accuracy").versions.get(number=1)
    return traces, version, JudgeConfig.objects.get(name="default")


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and its threads (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def worker_wait_ready(app, name: str, log: Path, process: subprocess.Popen, timeout: float = 90):
    # Workers log at WARNING (a line per task costs CPU), so readiness is asked, not read.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"worker exited:\n{log.read_text()[-3000:]}")
        if app.control.ping(destination=[name], timeout=0.5):
            return
    raise SystemExit(f"worker not ready:\n{log.read_text()[-3000:]}")


def processes_stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def celery_worker_args(pool: str, concurrency: int, name: str) -> list[str]:
    """`celery`'s arguments for one bench worker named `name`: quiet (a log line per task costs
    CPU) and without the gossip, mingle and heartbeat traffic between workers."""
    command = ["-A", "evalsite", "worker", "--pool", pool, "--concurrency", str(concurrency)]
    command += ["--loglevel", "WARNING", "--without-gossip", "--without-mingle"]
    return [*command, "--without-heartbeat", "-n", name]


def simulator_stats(port: int) -> dict:
    """The simulated judge's counters: requests, answers, errors_* and timeouts so far."""
    return json.loads(urlopen(f"http://127.0.0.1:{port}/_simulator/stats", timeout=30).read())


def median(values):
    """The middle value; of an even count, the upper of the two middle ones."""
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def _workers_start(tree: Path, label: str, pool: str, concurrency: int, env, var_dir, app):
    workers = []
    for index in range(env_workers(env)):
        name = f"bench-{label}{index}@{socket.gethostname()}"
        log = var_dir / f"{label}-worker{index}.log"
        command = [sys.executable, "-m", "celery", *celery_worker_args(pool, concurrency, name)]
        worker = subprocess.Popen(
            command, cwd=tree, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT
        )
        workers.append(worker)
        worker_wait_ready(app, name, log, worker)
    return workers


def env_workers(env: dict) -> int:
    return int(env["BENCH_WORKERS"])


def _run_delay_seconds(pid: int) -> float:
    """Time the process's threads were ready to run but waited for a CPU (Linux schedstat): on
    a shared machine, what the other work took from the workers."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[1])
        except (FileNotFoundError, IndexError):
            continue
    return total / 1e9


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _steady_rate(run) -> float:
    """Judgments/s between the 10th and the 90th percentile of completion times: the rate while
    the pipeline is full, without the first call's latency and the last calls' tail."""
    times = sorted(t.timestamp() for t in run.judgments.values_list("completed_at", flat=True) if t)
    if len(times) < 10:
        return 0.0
    low, high = len(times) // 10, len(times) * 9 // 10
    return (high - low) / max(times[high] - times[low], 1e-6)


def _phase(args, label: str, tree: Path, pool: str, concurrency: int, env, var_dir) -> dict:
    """Judge a fresh set of traces with workers started from `tree`; the figures."""
    from django.conf import settings

    from evalsite.celery import app
    from judges.models import Verdict, VerdictStatus
    from judges.services import judge_run_start
    from judges.tasks import judgment_requeue_stale_task

    traces, version, config = fresh_phase_start(env["REDIS_URL"], args.traces)
    if args.checked:
        from metrics.redflag_store import red_flags_check

        for trace in traces:
            red_flags_check(trace)
    # Small runs are published from here, large ones by a worker: both group alike.
    settings.JUDGE_PASSES_PER_TASK = int(env["JUDGE_PASSES_PER_TASK"])
    workers = _workers_start(tree, label, pool, concurrency, env, var_dir, app)
    rss_idle = max(rss_mib(w.pid) for w in workers)
    rss_most, running_most = rss_idle, 0
    # The largest RSS while the judgments stored were in each stretch of args.rss_every.
    rss_by_stretch: dict[int, float] = {}
    try:
        cpu_before = [_cpu_seconds(w.pid) for w in workers]
        delay_before = [_run_delay_seconds(w.pid) for w in workers]
        load_before = os.getloadavg()[0]
        started = time.monotonic()
        run = judge_run_start(rubric_version=version, config=config, traces=traces)
        last_sweep = time.monotonic()
        while True:
            run.refresh_from_db()
            if run.status == "done":
                break
            if time.monotonic() - last_sweep > 30:
                # What beat runs every 30 s: a pass whose message was lost, or whose worker
                # found no database connection in time, runs again once its lease is over.
                judgment_requeue_stale_task()
                last_sweep = time.monotonic()
            rss_now = max(rss_mib(w.pid) for w in workers)
            rss_most = max(rss_most, rss_now)
            if args.rss_every:
                stored = run.judgments.filter(status__in=("done", "failed")).count()
                stretch = stored // args.rss_every
                rss_by_stretch[stretch] = max(rss_by_stretch.get(stretch, 0.0), rss_now)
            running_most = max(running_most, run.judgments.filter(status="running").count())
            time.sleep(0.5)
        elapsed = time.monotonic() - started
        cpu = sum(_cpu_seconds(w.pid) for w in workers) - sum(cpu_before)
        delay = sum(_run_delay_seconds(w.pid) for w in workers) - sum(delay_before)
    finally:
        processes_stop(workers)
    judgments = run.judgments.count()
    verdicts = Verdict.objects.filter(run=run)
    return {
        "label": label,
        "pool": pool,
        "concurrency": concurrency,
        "judgments": judgments,
        "elapsed": elapsed,
        "rate": judgments / elapsed,
        "steady": _steady_rate(run),
        "cpu_ms": 1000 * cpu / judgments,
        "cpu_share": cpu / elapsed,
        "cpu_wait_share": delay / elapsed,
        "rss_idle": rss_idle,
        "rss_most": rss_most,
        "running_most": running_most,
        "rss_by_stretch": [rss_by_stretch[k] for k in sorted(rss_by_stretch)],
        "load": (load_before + os.getloadavg()[0]) / 2,
        "disputed": verdicts.filter(status=VerdictStatus.DISPUTED).count(),
        "verdicts": verdicts.count(),
        "costed": run.judgments.filter(status="done", latency_ms__gt=0).count(),
    }


def main() -> None:
    args = _args()
    var_dir = Path(tempfile.mkdtemp(prefix="evalsite-bench-"))
    env = stack_env(
        args,
        var_dir,
        # The simulated provider has no limits to respect; the shared limiter still runs.
        JUDGE_RATE_LIMIT_RPM=str(args.rate_limit_rpm),
        BENCH_WORKERS=str(args.workers),
        DB_POOL_MAX_SIZE=str(args.db_pool),
    )
    django_migrated(env, args.database_url)
    from judges.calibration import judge_calibration_update
    from judges.models import JudgeCalibration, JudgeConfig, Rubric

    version = Rubric.objects.get(name="Tool-call decision accuracy").versions.get(number=1)
    config = JudgeConfig.objects.get(name="default")
    JudgeCalibration.objects.filter(rubric_version=version, config=config).delete()
    if not args.calibrating:
        # Steady state: the judge version has passed calibration against people.
        judge_calibration_update(version, config, [(1, 1), (0, 0)] * 15)

    trees = [("now", ROOT, args.pool, args.concurrency, args.passes_per_task)]
    if args.before:
        before_tree = tree_at(args.before)
        before = (args.before_pool, args.before_concurrency, args.before_passes_per_task)
        trees.insert(0, ("before", before_tree, *before))
    simulator = subprocess.Popen(
        [sys.executable, "-m", "demo.simulator", "--port", str(args.port)]
        + ["--latency-ms", str(args.latency_ms), "--flip-rate", str(args.flip_rate)],
        cwd=ROOT,
        env=env,
        stderr=subprocess.DEVNULL,
    )
    state = "calibrating" if args.calibrating else "approved"
    flags = "checked before the run" if args.checked else "checked by the pass writing the verdict"
    print(
        f"{args.traces} traces x {config.passes} passes per phase, {args.workers} workers, "
        f"{args.latency_ms} ms simulated latency, {state} judge version, red flags {flags}, "
        f"before = {args.before or '-'}; {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    results: dict[str, list[dict]] = {label: [] for label, *_ in trees}
    try:
        for repetition in range(1, args.runs + 1):
            for label, tree, pool, concurrency, passes_per_task in trees:
                phase_env = {
                    **env,
                    "JUDGE_PASSES_PER_TASK": str(passes_per_task),
                    # A connection to the provider for every call a worker can have in flight.
                    "JUDGE_PROVIDER_CONNECTIONS": str(max(1000, concurrency * passes_per_task)),
                }
                figures = _phase(args, label, tree, pool, concurrency, phase_env, var_dir)
                results[label].append(figures)
                print(
                    f"run {repetition} {label:>6}: {figures['rate']:6.1f} judgments/s "
                    f"({figures['judgments']} in {figures['elapsed']:.1f}s, "
                    f"{args.workers} x {concurrency} {pool} x {passes_per_task} passes a task), "
                    f"{figures['steady']:.1f}/s with the pipeline full, "
                    f"worker CPU {figures['cpu_ms']:.1f} ms/judgment "
                    f"({figures['cpu_share']:.2f} cores used, "
                    f"{figures['cpu_wait_share']:.2f} waiting for one), "
                    f"passes in flight at most {figures['running_most']}, "
                    f"worker RSS {figures['rss_idle']:.0f} MiB idle, "
                    f"{figures['rss_most']:.0f} MiB at most, "
                    f"disputed {figures['disputed']}/{figures['verdicts']}, "
                    f"load {figures['load']:.2f}",
                    flush=True,
                )
                if args.rss_every:
                    print(
                        f"  worker RSS at most per {args.rss_every} judgments stored: "
                        + " ".join(f"{rss:.0f}" for rss in figures["rss_by_stretch"]),
                        flush=True,
                    )
        stats = simulator_stats(args.port)
    finally:
        processes_stop([simulator])

    now_rate = median([r["rate"] for r in results["now"]])
    now_cpu = median([r["cpu_ms"] for r in results["now"]])
    print(f"now: median {now_rate:.1f} judgments/s (target {TARGET:.0f}: {now_rate / TARGET:.2f}x)")
    if args.before:
        before_rate = median([r["rate"] for r in results["before"]])
        before_cpu = median([r["cpu_ms"] for r in results["before"]])
        print(
            f"now/before: throughput {now_rate / before_rate:.2f}x, "
            f"worker CPU per judgment {now_cpu / before_cpu:.2f}x"
        )
    print(f"judge calls in flight at most: {stats.get('max_in_flight')}")
    limit = args.rate_limit_rpm / 60
    print(
        f"rate limit in this run: {args.rate_limit_rpm} requests/min = {limit:.0f}/s; "
        f"the default JUDGE_RATE_LIMIT_RPM 4000 = 67/s binds below what the workers do"
    )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
