"""Judging throughput: judgments per second through the real stack.

Starts the simulated judge (1 s latency by default) and two `celery worker --pool threads`
processes, judges a fresh set of traces twice each, and prints judgments/s against the
target of 40. Use PostgreSQL and Redis of your own (the defaults are evalsite_bench and db 9):

    .venv/bin/python bench/judge_throughput.py --traces 400
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
TARGET = 40.0


def _args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=400)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=32, help="threads per worker")
    parser.add_argument("--latency-ms", type=int, default=1000)
    parser.add_argument("--flip-rate", type=float, default=0.12)
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
        "JUDGE_RATE_LIMIT_RPM": "1000000",
        "JUDGE_RATE_LIMIT_TPM": "10000000000",
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
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

    from evalsite.celery import app
    from judges.calibration import judge_calibration_update
    from judges.models import (
        JudgeCalibration,
        JudgeConfig,
        JudgeRun,
        Rubric,
        Verdict,
        VerdictStatus,
    )
    from judges.services import judge_run_start
    from tests.judges import sample_traces
    from traces.models import Project, Trace

    # A fresh set each time: identical prompts from an earlier run would come from the cache.
    JudgeRun.objects.all().delete()
    Trace.objects.all().delete()
    app.control.purge()
    project, _ = Project.objects.get_or_create(slug="bench", defaults={"name": "Bench"})
    started = time.monotonic()
    traces = sample_traces.traces_mixed(args.traces, project=project)
    print(f"created {len(traces)} traces in {time.monotonic() - started:.1f}s", flush=True)

    processes = []
    try:
        simulator = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "judges.simulator",
                "--port",
                str(args.port),
                "--latency-ms",
                str(args.latency_ms),
                "--flip-rate",
                str(args.flip_rate),
            ],
            cwd=ROOT,
            env=env,
            stderr=subprocess.DEVNULL,
        )
        processes.append(simulator)
        names = ["simulator"] + [f"worker{index}" for index in range(args.workers)]
        for index in range(args.workers):
            log = var_dir / f"worker{index}.log"
            worker = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "evalsite",
                    "worker",
                    "--pool",
                    "threads",
                    "--concurrency",
                    str(args.concurrency),
                    "--loglevel",
                    "WARNING",
                    "--without-gossip",
                    "--without-mingle",
                    "--without-heartbeat",
                    "-n",
                    f"bench{index}@{socket.gethostname()}",
                ],
                cwd=ROOT,
                env=env,
                stdout=log.open("wb"),
                stderr=subprocess.STDOUT,
            )
            processes.append(worker)
            _wait_ready(app, f"bench{index}@{socket.gethostname()}", log, worker)

        version = Rubric.objects.get(name="Tool-call decision accuracy").versions.get(number=1)
        config = JudgeConfig.objects.get(name="default")
        JudgeCalibration.objects.filter(rubric_version=version, config=config).delete()
        if not args.calibrating:
            # Steady state: the judge version has passed calibration against people.
            judge_calibration_update(version, config, [(1, 1), (0, 0)] * 15)
        cpu_before = {name: _cpu_seconds(p.pid) for name, p in zip(names, processes, strict=True)}
        started = time.monotonic()
        run = judge_run_start(rubric_version=version, config=config, traces=traces)
        while True:
            run.refresh_from_db()
            if run.status == "done":
                break
            time.sleep(0.2)
        elapsed = time.monotonic() - started
        stats = json.loads(urlopen(f"http://127.0.0.1:{args.port}/_simulator/stats").read())
        cpu = {
            name: _cpu_seconds(p.pid) - cpu_before[name]
            for name, p in zip(names, processes, strict=True)
        }
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()

    judgments = run.judgments.count()
    verdicts = Verdict.objects.filter(run=run)
    disputed = verdicts.filter(status=VerdictStatus.DISPUTED).count()
    rate = judgments / elapsed
    serial = 1000 / max(1, args.latency_ms)
    state = "calibrating" if args.calibrating else "approved"
    print(
        f"{judgments} judgments ({len(traces)} traces x {config.passes} passes) in {elapsed:.1f}s "
        f"with {args.workers} workers x {args.concurrency} threads, {args.latency_ms} ms latency, "
        f"{state} judge version"
    )
    print(f"throughput: {rate:.1f} judgments/s  (target {TARGET:.0f}: {rate / TARGET:.2f}x)")
    print(f"speed-up over one call at a time: {rate / serial:.1f}x")
    print(f"judge calls in flight at most: {stats.get('max_in_flight')}")
    per_judgment = ", ".join(f"{name} {1000 * secs / judgments:.1f}" for name, secs in cpu.items())
    print(f"CPU ms per judgment: {per_judgment}")
    total = verdicts.count()
    print(f"disputed verdicts: {disputed}/{total} ({100 * disputed / max(1, total):.1f}%)")


if __name__ == "__main__":
    main()
