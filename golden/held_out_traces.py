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

from collections.abc import Iterable

from django.db.models import BooleanField, Case, Exists, OuterRef, Q, Value, When

from golden.evals.tags import EXAMPLE_TAG, traces_tagged
from golden.models import GoldenExample
from traces.models import Trace
from traces.session_totals import sessions_totals_recount


def _held_out_tasks() -> tuple[list[str], list[str]]:
    """Keys and task texts of the held-out examples."""
    rows = GoldenExample.objects.filter(held_out=True).values_list("key", "task")
    keys, tasks = [], []
    for key, task in rows:
        keys.append(key)
        if task.strip():
            tasks.append(task)
    return keys, tasks


def _held_out_condition(keys: list[str], tasks: list[str]) -> Q:
    condition = Q(Exists(GoldenExample.objects.filter(source_trace=OuterRef("pk"), held_out=True)))
    if keys:
        condition |= traces_tagged(EXAMPLE_TAG, keys)
    if tasks:
        condition |= Q(task__in=tasks)
    return condition


def traces_held_out_sync(trace_ids: Iterable[int | None]) -> None:
    """Recompute the flag of these traces, writing only the ones that change, and the
    held-out counts of their sessions."""
    ids = {pk for pk in trace_ids if pk is not None}
    if not ids:
        return
    keys, tasks = _held_out_tasks()
    traces = Trace.objects.filter(pk__in=ids)
    if not keys:
        # No held-out example: nothing is held out, and usually nothing was (one query).
        traces = traces.filter(held_out=True)
    rows = traces.annotate(
        should=Case(
            When(_held_out_condition(keys, tasks), then=Value(True)),
            default=Value(False),
            output_field=BooleanField(),
        )
    ).values_list("pk", "held_out", "should", "session_id")
    changed = [(pk, should, session) for pk, held, should, session in rows if held != should]
    for flag in (True, False):
        moved = [pk for pk, should, _ in changed if should is flag]
        if moved:
            Trace.objects.filter(pk__in=moved).update(held_out=flag)
    sessions_totals_recount(sorted({s for _, _, s in changed if s is not None}))


def example_traces(examples: Iterable[GoldenExample]) -> list[int]:
    """Traces whose flag a write of these examples can move, read before the write: their
    source traces, traces tagged with their keys or asking their tasks, and every trace held
    out now (an example whose task or key changed releases the ones that matched before)."""
    sources, keys, tasks = set(), set(), set()
    for example in examples:
        if example.source_trace_id is not None:
            sources.add(example.source_trace_id)
        keys.add(example.key)
        if example.task.strip():
            tasks.add(example.task)
    if not (sources or keys):
        return []
    matching = Q(pk__in=sources) | Q(held_out=True) | Q(task__in=tasks)
    matching |= traces_tagged(EXAMPLE_TAG, sorted(keys))
    return list(Trace.objects.filter(matching).values_list("pk", flat=True))
