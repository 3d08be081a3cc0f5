"""Publishing a task without letting a broker outage undo work that is already committed.

Every row a task acts on is in the database before it is published, and a periodic sweep
re-enqueues what sat unpublished (judges.execution.judgments_stale, the trace settle sweep).
So a failed publish is logged and counted, never raised: the request that committed the work
answers "accepted" instead of an error a client would retry and pay for twice.
"""

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache

from kombu.exceptions import OperationalError

logger = logging.getLogger(__name__)


@cache
def publish_errors() -> tuple[type[Exception], ...]:
    """What a broker outage raises. redis is imported when one happens (an `except` clause
    evaluates its expression only then), not at start-up, where it costs a web worker more
    than any other import."""
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    return (OperationalError, RedisConnectionError, RedisTimeoutError, ConnectionError)


@dataclass
class PublishTally:
    published: int = 0
    deferred: int = 0


_tally: ContextVar[PublishTally | None] = ContextVar("publish_tally", default=None)


@contextmanager
def publish_tally() -> Iterator[PublishTally]:
    """Count the publishes made inside the block, including on_commit ones run at its end."""
    tally = PublishTally()
    token = _tally.set(tally)
    try:
        yield tally
    finally:
        _tally.reset(token)


def task_publish(task, *args, **options) -> bool:
    """apply_async that survives a broker outage; False when the sweep will have to do it."""
    tally = _tally.get()
    try:
        task.apply_async(args, **options)
    except publish_errors() as exc:
        logger.warning("broker unavailable, %s(%s) left to the sweep: %s", task.name, args, exc)
        if tally is not None:
            tally.deferred += 1
        return False
    if tally is not None:
        tally.published += 1
    return True


def tasks_publish_each(task, ids: list[int]) -> int:
    """Publish task(id) for each id, stopping at the first failure: while the broker is down
    each attempt costs its retry policy, and the sweep finds the rest anyway."""
    for done, item in enumerate(ids):
        if not task_publish(task, item):
            tally = _tally.get()
            if tally is not None:
                tally.deferred += len(ids) - done - 1
            return done
    return len(ids)
