"""Keeps Trace.held_out true exactly while a trace backs a held-out golden example.

Every app hides held-out traces through `traces.selectors.traces_visible`, which reads that
flag; golden owns the examples, so golden keeps the flag right on every write that can move it.
"""

from collections.abc import Iterable

from django.db.models import Exists, OuterRef

from golden.models import GoldenExample
from traces.models import Trace
from traces.session_totals import sessions_totals_recount


def traces_held_out_sync(trace_ids: Iterable[int | None]) -> None:
    """Recompute the flag of these traces from their examples (one UPDATE), and the held-out
    counts of their sessions."""
    ids = {pk for pk in trace_ids if pk is not None}
    if not ids:
        return
    backing = GoldenExample.objects.filter(source_trace_id=OuterRef("pk"), held_out=True)
    Trace.objects.filter(pk__in=ids).update(held_out=Exists(backing))
    sessions_totals_recount(
        Trace.objects.filter(pk__in=ids, session__isnull=False).values_list("session_id", flat=True)
    )


def example_traces(examples) -> list[int]:
    """Source trace ids of a queryset of examples, read before a bulk update moves them."""
    return list(examples.exclude(source_trace=None).values_list("source_trace_id", flat=True))
