"""Judge worker memory with thousands of calls in flight, this code against an earlier commit's,
in the same run.

Per phase: one gevent worker (`--concurrency 100`, `JUDGE_PASSES_PER_TASK=20`, the guide's
settings) judges a fresh set of traces twice each against the simulated judge at a long latency,
so that every pass is in flight at once. The worker's resident memory is read idle, while the
calls are in flight (once the simulator holds `--in-flight` of them) and at most over the run,
which ends when every pass is stored. `--traced` starts this tree's worker under tracemalloc and
prints, with the calls in flight, where the Python heap went (by line and by call path) and the
objects alive by type, for finding what a call in flight keeps. Use PostgreSQL and Redis of your
own (the defaults are evalsite_bench and db 9):

    .venv/bin/python bench/judge_memory.py --traces 1000 --runs 2
    .venv/bin/python bench/judge_memory.py --traced --before ''
"""

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from judge_throughput import (
    celery_worker_args,
    django_migrated,
    fresh_phase_start,
    median,
    processes_stop,
    rss_mib,
    simulator_stats,
    stack_arguments,
    stack_env,
    worker_wait_ready,
)
from trees import bytecode_compile, trees_compared

ROOT = Path(__file__).resolve().parents[1]
TARGET_MIB = 300.0


def _args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=1000, help="two passes each")
    parser.add_argument("--in-flight", type=int, default=2000, help="calls held at once")
    parser.add_argument("--runs", type=int, default=1, help="before/now pairs to measure")
    parser.add_argument("--before", default="main", help="the earlier commit; '' skips it")
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--passes-per-task", type=int, default=20)
    parser.add_argument("--latency-ms", type=int, default=600_000, help="long: calls stay")
    parser.add_argument("--hold-seconds", type=float, default=5.0, help="sampling at the peak")
    parser.add_argument("--traced", action="store_true", help="tracemalloc in this tree's worker")
    stack_arguments(parser)
    return parser.parse_args()


def _in_flight(port: int) -> int:
    """Calls the simulator holds now: asked, not yet answered or failed."""
    stats = simulator_stats(port)
    ended = sum(v for k, v in stats.items() if k == "answers" or k.startswith("errors_"))
    return stats.get("requests", 0) - ended - stats.get("timeouts", 0)


def _worker_start(tree: Path, label: str, args, env: dict, var_dir: Path, app):
    name = f"bench-memory-{label}@{socket.gethostname()}"
    log = var_dir / f"{label}-worker.log"
    if args.traced and label == "now":
        # The tracing launcher runs `celery` itself, from this tree, on `tree`'s code.
        command = [sys.executable, str(ROOT / "bench" / "traced_worker.py")]
    else:
        command = [sys.executable, "-m", "celery"]
    command += celery_worker_args("gevent", args.concurrency, name)
    worker = subprocess.Popen(
        command, cwd=tree, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT
    )
    try:
        # Under tracemalloc every import is recorded: a start takes minutes on a busy machine.
        worker_wait_ready(app, name, log, worker, timeout=900 if args.traced else 180)
    except BaseException:
        # A worker left running would take the next phase's messages.
        worker.kill()
        worker.wait()
        raise
    return worker


def _phase(args, label: str, tree: Path, env: dict, var_dir: Path) -> dict:
    from django.conf import settings

    from evalsite.celery import app
    from judges.services import judge_run_start

    traces, version, config = fresh_phase_start(args.redis_url, args.traces)
    settings.JUDGE_PASSES_PER_TASK = args.passes_per_task
    # A simulator of its own: the calls it holds end with it, not with the worker.
    simulator = subprocess.Popen(
        [sys.executable, "-m", "demo.simulator", "--port", str(args.port)]
        + ["--latency-ms", str(args.latency_ms)],
        cwd=ROOT,
        env=env,
        stderr=subprocess.DEVNULL,
    )
    try:
        worker = _worker_start(tree, label, args, env, var_dir, app)
    except BaseException:
        processes_stop([simulator])
        raise
    rss_idle = rss_mib(worker.pid)
    traced = ""
    try:
        run = judge_run_start(rubric_version=version, config=config, traces=traces)
        expected = run.judgments.count()
        wanted = min(args.in_flight, expected)
        deadline = time.monotonic() + args.latency_ms / 1000
        started, shown = time.monotonic(), 0.0
        while (now_in_flight := _in_flight(args.port)) < wanted:
            if time.monotonic() - shown > 5:
                shown = time.monotonic()
                print(f"  {shown - started:5.1f}s: {now_in_flight} calls in flight", flush=True)
            if time.monotonic() > deadline or worker.poll() is not None:
                raise SystemExit(f"{label}: {_in_flight(args.port)} calls in flight, not {wanted}")
            time.sleep(0.2)
        ramp = time.monotonic() - started
        held, samples = _in_flight(args.port), []
        hold_until = time.monotonic() + args.hold_seconds
        while time.monotonic() < hold_until:
            samples.append(rss_mib(worker.pid))
            time.sleep(0.25)
        rss_in_flight = max(samples)
        if args.traced and label == "now":
            traced = _traced_report(worker, var_dir)
    finally:
        # Not waited for: the calls would take the simulator's latency to end.
        worker.kill()
        worker.wait()
        processes_stop([simulator])
    return {
        "rss_idle": rss_idle,
        "rss_in_flight": rss_in_flight,
        "ramp": ramp,
        "held": held,
        "per_call_kib": (rss_in_flight - rss_idle) * 1024 / max(held, 1),
        "traced": traced,
    }


def _traced_report(worker: subprocess.Popen, var_dir: Path) -> str:
    report = var_dir / "traced.txt"
    os.kill(worker.pid, signal.SIGUSR2)
    deadline = time.monotonic() + 120
    while not (report.exists() and report.read_text().endswith("end\n")):
        if time.monotonic() > deadline:
            return "(no tracemalloc report)"
        time.sleep(0.5)
    return report.read_text()


def main() -> None:
    args = _args()
    var_dir = Path(tempfile.mkdtemp(prefix="evalsite-bench-"))
    env = stack_env(
        args,
        var_dir,
        JUDGE_RATE_LIMIT_RPM="1000000",
        JUDGE_PASSES_PER_TASK=str(args.passes_per_task),
        JUDGE_PROVIDER_CONNECTIONS=str(args.concurrency * args.passes_per_task),
        JUDGE_TIMEOUT_SECONDS=str(args.latency_ms / 1000 + 60),
        DB_POOL_MAX_SIZE="24",
        TRACED_WORKER_REPORT=str(var_dir / "traced.txt"),
    )
    django_migrated(env, args.database_url)

    bytecode_compile(ROOT)
    trees = trees_compared(args.before)
    print(
        f"{args.traces} traces x 2 passes per phase, one gevent worker x {args.concurrency} "
        f"x {args.passes_per_task} passes a task, {args.latency_ms} ms simulated latency, "
        f"before = {args.before or '-'}; {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    results: dict[str, list[dict]] = {label: [] for label in trees}
    for repetition in range(1, args.runs + 1):
        for label, tree in trees.items():
            figures = _phase(args, label, tree, env, var_dir)
            results[label].append(figures)
            print(
                f"run {repetition} {label:>6}: worker RSS {figures['rss_idle']:.0f} MiB idle, "
                f"{figures['rss_in_flight']:.0f} MiB with {figures['held']} calls in flight "
                f"({figures['per_call_kib']:.0f} KiB a call), "
                f"{figures['ramp']:.0f} s to put them in flight; load {os.getloadavg()[0]:.2f}",
                flush=True,
            )
            if figures["traced"]:
                print(figures["traced"], flush=True)

    for label, runs in results.items():
        rss = median([r["rss_in_flight"] for r in runs])
        print(
            f"{label:>6}: median RSS {rss:.0f} MiB with {median([r['held'] for r in runs])} "
            f"calls in flight (target < {TARGET_MIB:.0f}), "
            f"{median([r['rss_idle'] for r in runs]):.0f} MiB idle, "
            f"{median([r['per_call_kib'] for r in runs]):.0f} KiB a call"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
