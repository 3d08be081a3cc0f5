"""The held-out predicate: which traces belong to a held-out task. Its one home.

A trace is held out while
- it is the source of a held-out golden example, or
- it is tagged with a held-out example's key (`evalsite.example_key`, the tag eval trials
  carry: trace context, attributes, OTLP resource, or a span), or
- it asks a held-out example's task, word for word.

`Trace.held_out` stores the answer, and every app hides held-out traces through
`traces.selectors.traces_visible`, which reads it. Golden owns the examples, so golden keeps
the flag right: when spans are stored (the receiver runs inside ingest's transaction, so a
trial is never visible, judged into a queue or exported before it is held out), and on every
write of examples that can move it.
"""

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.db.models import BooleanField, Case, Exists, OuterRef, Q, Value, When

from golden.evals.tags import EXAMPLE_TAG, traces_tagged, traces_with_span_tagged
from golden.models import GoldenExample
from golden.sql import held_out_keys
from traces.models import Trace
from traces.session_totals import sessions_totals_recount

_sync_deferred: ContextVar[bool] = ContextVar("held_out_sync_deferred", default=False)


@contextmanager
def held_out_sync_deferred() -> Iterator[None]:
    """Within it, writes of single examples leave the flags alone: the caller, writing many,
    syncs their traces once (golden.deletion)."""
    token = _sync_deferred.set(True)
    try:
        yield
    finally:
        _sync_deferred.reset(token)


def held_out_sync_is_deferred() -> bool:
    return _sync_deferred.get()


def _held_out_condition(keys: list[str]) -> Q:
    """The predicate, as SQL against the held-out examples: only their keys are read, for
    the spans' tags (ingest asks it on every request)."""
    held = GoldenExample.objects.filter(held_out=True)
    return (
        Q(Exists(held.filter(source_trace=OuterRef("pk"))))
        | Q(Exists(held.filter(task=OuterRef("task")).exclude(task="")))
        | traces_tagged(EXAMPLE_TAG, held.values("key"))
        | traces_with_span_tagged(EXAMPLE_TAG, keys)
    )


def traces_held_out_sync(
    trace_ids: Iterable[int | None], held_out_ids: Iterable[int] | None = None
) -> int:
    """Recompute the flag of these traces, writing only the ones that change, and the
    held-out counts of their sessions; returns how many changed. `held_out_ids`, when given,
    are those of the traces whose flag is set now (ingest read them under the traces' lock)."""
    ids = {pk for pk in trace_ids if pk is not None}
    if not ids:
        return 0
    keys = held_out_keys()
    if not keys and held_out_ids is not None and not ids.intersection(held_out_ids):
        return 0  # nothing is held out and no flag is set: ingest's usual request, one query
    if not keys:
        # Nothing is held out: only a flag left from before can move (ingest, most requests, is
        # spared building and planning the predicate's four subqueries).
        rows = Trace.objects.filter(pk__in=ids, held_out=True).values_list("pk", "session_id")
        changed = [(pk, False, session) for pk, session in rows]
    else:
        changed = _changed_flags(ids, keys)
    for flag in (True, False):
        moved = [pk for pk, should, _ in changed if should is flag]
        if moved:
            Trace.objects.filter(pk__in=moved).update(held_out=flag)
    sessions_totals_recount(sorted({s for _, _, s in changed if s is not None}))
    return len(changed)


def _changed_flags(ids: set[int], keys: list[str]) -> list[tuple[int, bool, int | None]]:
    """(trace, flag it should have, its session) for the traces whose flag is wrong."""
    rows = (
        Trace.objects.filter(pk__in=ids)
        .annotate(
            should=Case(
                When(_held_out_condition(keys), then=Value(True)),
                default=Value(False),
                output_field=BooleanField(),
            )
        )
        .values_list("pk", "held_out", "should", "session_id")
    )
    return [(pk, should, session) for pk, held, should, session in rows if held != should]


def example_traces(examples: Iterable[GoldenExample]) -> list[int]:
    """Traces whose flag a write of these examples can move, read before the write: their
    source traces, every trace held out now (an example released, or whose task or key
    changed, releases the ones it held), and the traces a held-out one holds by key or task."""
    sources, keys, tasks = set(), set(), set()
    for example in examples:
        if example.source_trace_id is not None:
            sources.add(example.source_trace_id)
        if example.held_out:
            keys.add(example.key)
            if example.task.strip():
                tasks.add(example.task)
    matching = Q(pk__in=sources) | Q(held_out=True)
    if keys:
        tagged = sorted(keys)
        matching |= Q(task__in=tasks) | traces_tagged(EXAMPLE_TAG, tagged)
        matching |= traces_with_span_tagged(EXAMPLE_TAG, tagged)
    return list(Trace.objects.filter(matching).values_list("pk", flat=True))
