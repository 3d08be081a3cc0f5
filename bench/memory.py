"""Web worker memory and cold start, this code against an earlier commit's, in the same run.

Run: .venv/bin/python bench/memory.py [--before REF] [--runs 3] [--port 8220]
Each run launches `gunicorn evalsite.wsgi` with one worker (the tree's gunicorn.conf.py) and
times process launch to the first answer of GET /login/, which loads every URL's views; the
worker's RSS is then read from /proc. Both versions alternate, with the load average.
Targets (issue 18): a worker under 150 MiB RSS, a cold start under 2 s.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from served import serving
from trees import bytecode_compile, trees_compared

ROOT = Path(__file__).resolve().parent.parent


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def children(pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def launch(tree: Path, port: int) -> tuple[float, float]:
    """Seconds from launch to the first answer, and the worker's RSS in MiB right after."""
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(
        EVALSITE_VAR_DIR=tempfile.mkdtemp(prefix="evalsite-bench-var-"),
        DJANGO_SETTINGS_MODULE="evalsite.settings",
    )
    command = [sys.executable, "-m", "gunicorn", "evalsite.wsgi", "-w", "1"]
    command += ["-b", f"127.0.0.1:{port}"]
    started = time.perf_counter()
    with serving(command, tree, env, port, 120, f"gunicorn in {tree}") as server:
        cold = time.perf_counter() - started
        (worker,) = children(server.pid)
        return cold, rss_mib(worker)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main", help="the earlier commit to compare with")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--port", type=int, default=8220)
    args = parser.parse_args()
    bytecode_compile(ROOT)
    trees = trees_compared(args.before)
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
    print(
        f"before = {args.before}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
    )
    for run in range(1, args.runs + 1):
        for name, tree in trees.items():
            cold, rss = launch(tree, args.port)
            figures[name].append((cold, rss))
            print(
                f"run {run} {name:>6}: cold start {cold:5.2f} s, worker RSS {rss:6.1f} MiB "
                f"(load {os.getloadavg()[0]:.2f})"
            )
    for name, runs in figures.items():
        colds, rsses = zip(*runs, strict=True)
        print(
            f"{name:>6}: cold start median {statistics.median(colds):.2f} s, "
            f"worker RSS median {statistics.median(rsses):.1f} MiB"
        )
    (cold_b, rss_b), (cold_n, rss_n) = (
        tuple(statistics.median(col) for col in zip(*figures[n], strict=True))
        for n in ("before", "now")
    )
    print(f"now/before: cold start {cold_n / cold_b:.2f}x, RSS {rss_n / rss_b:.2f}x")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
