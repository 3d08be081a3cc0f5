"""Cold start: process launch to the first HTTP answer, for `gunicorn evalsite.wsgi` and for
`manage.py serve` (web, worker and simulated judge), this code against an earlier commit's.

Run: .venv/bin/python bench/cold_start.py [--before REF] [--runs 3] [--port 8184]
Each launch gets a fresh var folder and times GET /login/ answering (the first request loads
every URL's views). Both trees share one migrated SQLite file and alternate, run by run, with
the load average printed beside each figure. Target (issue 18): under 2 s.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from served import serving
from trees import bytecode_compile, trees_compared

ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 2.0


def commands(port: int) -> dict[str, list[str]]:
    return {
        "gunicorn": [sys.executable, "-m", "gunicorn", "evalsite.wsgi", "-w", "1"]
        + ["-b", f"127.0.0.1:{port}"],
        "serve": [sys.executable, "manage.py", "serve", "--addr", f"127.0.0.1:{port}"],
    }


def launch(tree: Path, command: list[str], port: int, env: dict) -> float:
    """Seconds from launch to the first answer; the server and its children are then stopped."""
    env = {**env, "EVALSITE_VAR_DIR": tempfile.mkdtemp(prefix="evalsite-bench-var-")}
    started = time.perf_counter()
    with serving(command, tree, env, port, 180, f"{command[:4]} in {tree}"):
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main", help="the earlier commit to compare with")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--port", type=int, default=8184)
    parser.add_argument("--judge-port", type=int, default=8185, help="serve's simulated judge")
    args = parser.parse_args()
    database = Path(tempfile.mkdtemp(prefix="evalsite-bench-db-")) / "bench.sqlite3"
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"}
    }
    env.update(
        DATABASE_URL=f"sqlite:///{database}",
        DJANGO_SETTINGS_MODULE="evalsite.settings",
        SIMULATED_JUDGE_PORT=str(args.judge_port),
    )
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env={**env, "EVALSITE_VAR_DIR": tempfile.mkdtemp()},
        check=True,
    )
    bytecode_compile(ROOT)
    trees = trees_compared(args.before)
    servers = commands(args.port)
    figures: dict[tuple[str, str], list[float]] = {}
    print(
        f"before = {args.before}; {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.2f}; target {TARGET_SECONDS:.0f} s",
        flush=True,
    )
    for tree in trees.values():
        # A first launch per tree compiles its bytecode; it is not counted.
        launch(tree, servers["gunicorn"], args.port, env)
    for run in range(1, args.runs + 1):
        for server, command in servers.items():
            for name, tree in trees.items():
                seconds = launch(tree, command, args.port, env)
                figures.setdefault((server, name), []).append(seconds)
                print(
                    f"run {run} {server:>8} {name:>6}: {seconds:5.2f} s "
                    f"(load {os.getloadavg()[0]:.2f})",
                    flush=True,
                )
    for server in servers:
        before = statistics.median(figures[(server, "before")])
        now = statistics.median(figures[(server, "now")])
        print(
            f"{server:>8}: median before {before:.2f} s, now {now:.2f} s, "
            f"now/before {now / before:.2f}x, now/target {now / TARGET_SECONDS:.2f}x"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
