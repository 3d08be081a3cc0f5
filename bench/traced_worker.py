"""`celery ...` under tracemalloc, for bench/judge_memory.py --traced: on SIGUSR2 the worker
writes where its Python heap went (by line, by call path) and its live objects by type to
$TRACED_WORKER_REPORT, ending with a line `end`. Run from the tree whose code is measured."""

import collections
import gc
import os
import signal
import sys
import tracemalloc

FRAMES = 12
TOP = 25


def _report(signum, frame) -> None:
    snapshot = tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.Filter(False, tracemalloc.__file__)]
    )
    lines = [f"tracemalloc: {tracemalloc.get_traced_memory()[0] / 2**20:.1f} MiB traced now"]
    lines.append("-- by line")
    for stat in snapshot.statistics("lineno")[:TOP]:
        lines.append(f"{stat.size / 2**10:9.0f} KiB {stat.count:7d}  {stat.traceback[0]}")
    lines.append("-- by call path (innermost first)")
    for stat in snapshot.statistics("traceback")[:10]:
        lines.append(f"{stat.size / 2**10:9.0f} KiB {stat.count:7d}")
        lines += [f"            {entry}" for entry in stat.traceback[:FRAMES]]
    types = collections.Counter(type(obj).__qualname__ for obj in gc.get_objects())
    lines.append("-- live objects by type")
    lines += [f"{count:9d} {name}" for name, count in types.most_common(TOP)]
    with open(os.environ["TRACED_WORKER_REPORT"], "w") as report:
        report.write("\n".join(lines) + "\nend\n")


if __name__ == "__main__":
    tracemalloc.start(FRAMES)
    signal.signal(signal.SIGUSR2, _report)
    sys.path.insert(0, os.getcwd())
    from celery.__main__ import main

    sys.argv = ["celery", *sys.argv[1:]]
    main()
