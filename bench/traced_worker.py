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


_ready: list[tracemalloc.Snapshot] = []


def _snapshot() -> tracemalloc.Snapshot:
    return tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.Filter(False, tracemalloc.__file__)]
    )


def _ready_snapshot(**kwargs) -> None:
    _ready.append(_snapshot())


def _report(signum, frame) -> None:
    snapshot = _snapshot()
    lines = [f"tracemalloc: {tracemalloc.get_traced_memory()[0] / 2**20:.1f} MiB traced now"]
    if _ready:
        # What the calls in flight added since the worker was ready, by line.
        lines.append("-- grown since ready, by line")
        for stat in snapshot.compare_to(_ready[0], "lineno")[:TOP]:
            lines.append(
                f"{stat.size_diff / 2**10:9.0f} KiB {stat.count_diff:7d}  {stat.traceback[0]}"
            )
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
    from celery.signals import worker_ready

    worker_ready.connect(_ready_snapshot, weak=False)

    sys.argv = ["celery", *sys.argv[1:]]
    main()
