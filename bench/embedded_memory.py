"""Embedded mode's memory: every process `manage.py serve` starts, this code against an earlier
commit's, in the same run.

Each version gets a fresh var folder (SQLite, filesystem broker), is migrated and loaded with
the demo (whose traces the worker judges once it runs), then `manage.py serve` is started; once
the web server answers and the worker has judged for `--settle` seconds, the RSS and PSS
(shared pages split between the processes that share them) of each process in the tree are
read from /proc.

    .venv/bin/python bench/embedded_memory.py [--before main] [--port 8164] [--settle 20]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from served import serving  # noqa: E402
from trees import short_commit, trees_compared  # noqa: E402


def tree_pids(pid: int) -> list[int]:
    """The process and all its descendants."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(p) for p in (task / "children").read_text().split()]
        except FileNotFoundError:
            continue
    return found


def memory_kib(pid: int) -> tuple[int, int, int]:
    """(RSS, PSS, threads) of one process."""
    rollup = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
    fields = {line.split(":")[0]: line.split()[1] for line in rollup[1:]}
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    threads = next(int(line.split()[1]) for line in status if line.startswith("Threads:"))
    return int(fields["Rss"]), int(fields["Pss"]), threads


def label(pid: int) -> str:
    words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    text = " ".join(w.decode() for w in words if w)
    for marker, name in (
        ("demo.simulator", "simulated judge"),
        ("runserver", "web (runserver)"),
        ("celery", "celery"),
        ("manage.py serve", "serve (parent)"),
    ):
        if marker in text:
            return name
    return text[:40]


def measure(tree: Path, port: int, judge_port: int, settle: float) -> list[tuple]:
    """One start of embedded mode: rows of (pid, label, rss, pss, threads) once settled."""
    var = tempfile.mkdtemp(prefix="evalsite-embedded-")
    env = {
        k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "SECRET_KEY"}
    }
    env.update(EVALSITE_VAR_DIR=var, SIMULATED_JUDGE_PORT=str(judge_port), LOG_LEVEL="WARNING")
    env.pop("ANTHROPIC_API_KEY", None)
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v0"], cwd=tree, env=env, check=True)
    # The demo's traces are judged as soon as the worker runs: memory is read while it works.
    subprocess.run(
        [python, "manage.py", "load_demo"], cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL
    )
    serve = [python, "manage.py", "serve", "--addr", f"127.0.0.1:{port}"]
    with serving(serve, tree, env, port, 120, f"embedded mode in {tree}") as server:
        time.sleep(settle)
        rows = []
        for pid in tree_pids(server.pid):
            try:
                rows.append((pid, label(pid), *memory_kib(pid)))
            except (FileNotFoundError, ProcessLookupError):
                continue
        return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main", help="the earlier commit to compare with")
    parser.add_argument("--port", type=int, default=8164)
    parser.add_argument("--judge-port", type=int, default=8165)
    parser.add_argument("--settle", type=float, default=20.0, help="seconds after the first answer")
    args = parser.parse_args()
    commit = short_commit(args.before)
    load = os.getloadavg()
    print(
        f"before = {args.before} ({commit}); load average {load[0]:.1f} {load[1]:.1f} "
        f"{load[2]:.1f} on {os.cpu_count()} cores"
    )
    totals = {}
    for name, tree in trees_compared(args.before).items():
        rows = measure(tree, args.port, args.judge_port, args.settle)
        print(f"{name}:")
        for pid, what, rss, pss, threads in rows:
            print(
                f"  {what:<18} pid {pid:<7} RSS {rss / 1024:6.1f} MiB  PSS {pss / 1024:6.1f} MiB"
                f"  {threads:3d} threads"
            )
        rss = sum(r[2] for r in rows) / 1024
        pss = sum(r[3] for r in rows) / 1024
        totals[name] = (rss, pss, len(rows))
        print(f"  total: {len(rows)} processes, RSS {rss:.0f} MiB, PSS {pss:.0f} MiB")
    (rb, pb, nb), (rn, pn, nn) = totals["before"], totals["now"]
    print(f"now/before: processes {nn}/{nb}, RSS {rn / rb:.2f}x, PSS {pn / pb:.2f}x")


if __name__ == "__main__":
    main()
