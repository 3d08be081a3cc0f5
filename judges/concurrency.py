"""Running several judge passes of one task at the same time.

A worker started with `--pool gevent` has its sockets, locks and sleeps made cooperative, so a
pass waiting on the provider costs a green thread (a few KiB) instead of an OS thread: the
passes of a task run as green threads there. Any other pool runs them on OS threads, which is
correct but costs a thread each, so there the passes per task stay few (docs/judging.md).
"""

import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from functools import partial
from typing import Any

from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper

# Django's connection objects of finished green threads, by alias, for the next ones to use.
_idle_wrappers: dict[str, list[BaseDatabaseWrapper]] = {}


def green_threads() -> bool:
    """Whether this process was monkey-patched by gevent (Celery's gevent pool does it first)."""
    monkey = sys.modules.get("gevent.monkey")
    return monkey is not None and monkey.is_module_patched("socket")


def call_with_reused_wrappers(function: Callable[[Any], Any], item: Any) -> Any:
    """`function(item)`, in a thread made for it, with the Django connection objects
    (`connections[alias]`) of a thread that ran such a call before; closed and handed on to the
    next when it ends.

    Django makes one per thread, and under gevent one per green thread, so one per pass: a
    reference cycle of some 3 KiB (the wrapper and its ops, features, client, ...) that only the
    cyclic collector frees, which in a worker (evalsite/celery.py) runs rarely enough that a
    run's wrappers piled up, about 3 MiB of resident memory for every thousand passes. Reused,
    a worker keeps as many as passes it has had in flight at once. The database connection
    itself is the pool's, taken again on the next query, as after any close."""
    for alias in connections:
        # None idle: Django makes one if the call queries.
        with suppress(KeyError, IndexError):
            connections[alias] = _idle_wrappers[alias].pop()
    try:
        return function(item)
    finally:
        for wrapper in connections.all(initialized_only=True):
            try:
                wrapper.close()
            finally:
                del connections[wrapper.alias]
            if wrapper.connection is None and not wrapper.in_atomic_block:
                if not wrapper.allow_thread_sharing:
                    # Used by one thread at a time, but not by the one that made it.
                    wrapper.inc_thread_sharing()
                _idle_wrappers.setdefault(wrapper.alias, []).append(wrapper)


def each_at_once(function: Callable[[Any], Any], items: Iterable) -> list:
    """`function(item)` for every item, all at once; the results in the items' order. The
    function catches what it raises: one call's exception must not leave the others unrun."""
    items = list(items)
    if not items:
        return []
    if green_threads():
        from gevent.pool import Group

        return Group().map(partial(call_with_reused_wrappers, function), items)
    with ThreadPoolExecutor(max_workers=len(items), thread_name_prefix="judge-pass") as pool:
        return list(pool.map(function, items))
