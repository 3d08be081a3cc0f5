"""Running several judge passes of one task at the same time.

A worker started with `--pool gevent` has its sockets, locks and sleeps made cooperative, so a
pass waiting on the provider costs a green thread (a few KiB) instead of an OS thread: the
passes of a task run as green threads there. Any other pool runs them on OS threads, which is
correct but costs a thread each, so there the passes per task stay few (docs/judging.md).
"""

import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any


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
