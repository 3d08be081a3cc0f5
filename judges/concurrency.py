"""Running several judge passes of one task at the same time.

A worker started with `--pool gevent` has its sockets, locks and sleeps made cooperative, so a
pass waiting on the provider costs a green thread (a few KiB) instead of an OS thread: the
passes of a task run as green threads there. Any other pool runs them on OS threads, which is
correct but costs a thread each, so there the passes per task stay few (docs/judging.md).
"""

import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from django.db import connection


def green_threads() -> bool:
    """Whether this process was monkey-patched by gevent (Celery's gevent pool does it first)."""
    monkey = sys.modules.get("gevent.monkey")
    return monkey is not None and monkey.is_module_patched("socket")


def each_at_once(function: Callable[[Any], Any], items: Iterable) -> list:
    """`function(item)` for every item, all at once; the results in the items' order. The
    function catches what it raises: one call's exception must not leave the others unrun."""
    items = list(items)
    if not items:
        return []
    if green_threads():
        from gevent.pool import Group

        return Group().map(function, items)
    with ThreadPoolExecutor(max_workers=len(items), thread_name_prefix="judge-pass") as pool:
        return list(pool.map(function, items))


_starting: list[threading.BoundedSemaphore] = []


def passes_starting_at_once() -> int:
    """Half the process's database pool (at least one); four without a process pool."""
    pool = connection.settings_dict.get("OPTIONS", {}).get("pool")
    if not isinstance(pool, dict):
        return 4
    return max(1, pool.get("max_size", 8) // 2)


@contextmanager
def pass_starting() -> Iterator[None]:
    """A place among the passes of this process that are starting (claim, render, request
    lease), which hold a database connection from the claim on. Without it a worker holding
    thousands of passes let them all claim first, and every pass whose answer had come then
    queued for a connection behind them: nothing was stored until the last pass had started.
    The other half of the pool stores answers."""
    if not _starting:
        # Made at first use, after gevent (if any) has patched threading.
        _starting.append(threading.BoundedSemaphore(passes_starting_at_once()))
    with _starting[0]:
        yield
