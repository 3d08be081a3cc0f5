"""Judging throughput: judgments per second through the real stack, this code against an
earlier commit's, in the same run.

Starts the simulated judge (1 s latency by default) and, per phase, two Celery worker
processes from one tree: `before` (a commit, `main` by default, unpacked with `git archive`,
its workers at its documented 32 threads) and `now` (this tree, at the concurrency its README
recommends). Each phase judges a fresh set of traces twice each and prints judgments/s, the
workers' CPU per judgment and the load average. Use PostgreSQL and Redis of your own (the
defaults are evalsite_bench and db 9):

    .venv/bin/python bench/judge_throughput.py --traces 1000 --runs 3
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

from trees import tree_at

ROOT = Path(__file__).resolve().parents[1]
TARGET = 100.0


def _args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=1, help="before/now pairs to measure")
    parser.add_argument("--before", default="main", help="the earlier commit; '' skips it")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--concurrency", type=int, default=96, help="threads per worker, now (the README's)"
    )
    parser.add_argument("--before-concurrency", type=int, default=32)
    parser.add_argument("--latency-ms", type=int, default=1000)
    parser.add_argument("--flip-rate", type=float, default=0.12)
    parser.add_argument(
        "--rate-limit-rpm",
        type=int,
        default=1_000_000,
        help="JUDGE_RATE_LIMIT_RPM for the workers (the default never binds)",
    )
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


def _database_create(url: str) -> None:
    if not url.startswith("postgres"):
        return
    import psycopg

    base, name = url.rsplit("/", 1)
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and its threads (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_ready(app, name: str, log: Path, process: subprocess.Popen, timeout: float = 90):
    # Workers log at WARNING (a line per task costs CPU), so readiness is asked, not read.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"worker exited:\n{log.read_text()[-3000:]}")
        if app.control.ping(destination=[name], timeout=0.5):
            return
    raise SystemExit(f"worker not ready:\n{log.read_text()[-3000:]}")


def _stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def _workers_start(tree: Path, label: str, concurrency: int, env: dict, var_dir: Path, app):
    workers = []
    for index in range(env_workers(env)):
        name = f"bench-{label}{index}@{socket.gethostname()}"
        log = var_dir / f"{label}-worker{index}.log"
        command = [sys.executable, "-m", "celery", "-A", "evalsite", "worker", "--pool"]
        command += ["threads", "--concurrency", str(concurrency), "--loglevel", "WARNING"]
        command += ["--without-gossip", "--without-mingle", "--without-heartbeat", "-n", name]
        worker = subprocess.Popen(
            command, cwd=tree, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT
        )
        workers.append(worker)
        _wait_ready(app, name, log, worker)
    return workers


def env_workers(env: dict) -> int:
    return int(env["BENCH_WORKERS"])


def _phase(args, label: str, tree: Path, concurrency: int, env: dict, var_dir: Path) -> dict:
    """Judge a fresh set of traces with workers started from `tree`; the figures."""
    from evalsite.celery import app
    from judges.models import JudgeConfig, JudgeRun, Rubric, Verdict, VerdictStatus
    from judges.services import judge_run_start
    from tests.judges import sample_traces
    from traces.models import Project, Trace

    # A fresh set each time: identical prompts from an earlier run would come from the cache.
    JudgeRun.objects.all().delete()
    Trace.objects.all().delete()
    app.control.purge()
    project, _ = Project.objects.get_or_create(slug="bench", defaults={"name": "Bench"})
    traces = sample_traces.traces_mixed(args.traces, project=project)
    if args.checked:
        from metrics.redflag_store import red_flags_check

        for trace in traces:
            red_flags_check(trace)
    version = Rubric.objects.get(name="Tool-call decision accuracy").versions.get(number=1)
    config = JudgeConfig.objects.get(name="default")
    workers = _workers_start(tree, label, concurrency, env, var_dir, app)
    try:
        cpu_before = [_cpu_seconds(w.pid) for w in workers]
        load_before = os.getloadavg()[0]
        started = time.monotonic()
        run = judge_run_start(rubric_version=version, config=config, traces=traces)
        while True:
            run.refresh_from_db()
            if run.status == "done":
                break
            time.sleep(0.2)
        elapsed = time.monotonic() - started
        cpu = sum(_cpu_seconds(w.pid) for w in workers) - sum(cpu_before)
    finally:
        _stop(workers)
    judgments = run.judgments.count()
    verdicts = Verdict.objects.filter(run=run)
    return {
        "label": label,
        "concurrency": concurrency,
        "judgments": judgments,
        "elapsed": elapsed,
        "rate": judgments / elapsed,
        "cpu_ms": 1000 * cpu / judgments,
        "load": (load_before + os.getloadavg()[0]) / 2,
        "disputed": verdicts.filter(status=VerdictStatus.DISPUTED).count(),
        "verdicts": verdicts.count(),
        "costed": run.judgments.filter(status="done", latency_ms__gt=0).count(),
    }


def main() -> None:
    args = _args()
    var_dir = Path(tempfile.mkdtemp(prefix="evalsite-bench-"))
    env = {
        **os.environ,
        "DATABASE_URL": args.database_url,
        "REDIS_URL": args.redis_url,
        "EVALSITE_VAR_DIR": str(var_dir),
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{args.port}",
        "JUDGE_SIMULATED": "1",
        # The simulated provider has no limits to respect; the shared limiter still runs.
        "JUDGE_RATE_LIMIT_RPM": str(args.rate_limit_rpm),
        "JUDGE_RATE_LIMIT_TPM": "10000000000",
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
        "BENCH_WORKERS": str(args.workers),
    }
    env.pop("ANTHROPIC_API_KEY", None)
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    _database_create(args.database_url)

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from judges.calibration import judge_calibration_update
    from judges.models import JudgeCalibration, JudgeConfig, Rubric

    version = Rubric.objects.get(name="Tool-call decision accuracy").versions.get(number=1)
    config = JudgeConfig.objects.get(name="default")
    JudgeCalibration.objects.filter(rubric_version=version, config=config).delete()
    if not args.calibrating:
        # Steady state: the judge version has passed calibration against people.
        judge_calibration_update(version, config, [(1, 1), (0, 0)] * 15)

    trees = [("now", ROOT, args.concurrency)]
    if args.before:
        trees.insert(0, ("before", tree_at(args.before), args.before_concurrency))
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
    results: dict[str, list[dict]] = {label: [] for label, _, _ in trees}
    try:
        for repetition in range(1, args.runs + 1):
            for label, tree, concurrency in trees:
                figures = _phase(args, label, tree, concurrency, env, var_dir)
                results[label].append(figures)
                print(
                    f"run {repetition} {label:>6}: {figures['rate']:6.1f} judgments/s "
                    f"({figures['judgments']} in {figures['elapsed']:.1f}s, "
                    f"{args.workers} x {concurrency} threads), "
                    f"worker CPU {figures['cpu_ms']:.1f} ms/judgment, "
                    f"disputed {figures['disputed']}/{figures['verdicts']}, "
                    f"load {figures['load']:.2f}",
                    flush=True,
                )
        stats = json.loads(urlopen(f"http://127.0.0.1:{args.port}/_simulator/stats").read())
    finally:
        _stop([simulator])

    def median(values):
        ordered = sorted(values)
        return ordered[len(ordered) // 2]

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
