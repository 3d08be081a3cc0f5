"""A trace's red flags are computed once, when the trace completes, and again when spans
arrive after that; the check is recorded, and every other reader (reconciliation, the review
queue, eval scoring, the pages) reads the stored rows. The same reading counts the failed calls
the model was told of that no failed span counts into the trace's errors (told_failures)."""

from django.db import transaction

from core.plain_rows import instances_where
from metrics.models import RedFlag
from metrics.redflag_sql import (
    trace_check_record,
    trace_checked,
    trace_flags_delete,
)
from metrics.redflags import flag_rules_for, red_flags_detect
from metrics.steps import trace_spans
from metrics.told_failures import told_failures_count, told_failures_record
from traces.models import Span, Trace

LOCKED_FIELDS = ("id", "last_span_received_at", "span_count", "told_error_count", "session_id")


def _stored(trace: Trace) -> list[RedFlag]:
    return list(trace.red_flags.select_related("span").order_by("pk"))


def _trace_locked(trace: Trace) -> Trace | None:
    # The row lock keeps two concurrent checks from storing the flags twice; what is read
    # tells whether spans arrived since `trace` was loaded.
    locked = instances_where(Trace, LOCKED_FIELDS, "id = %s", [trace.pk], lock=True)
    return locked[0] if locked else None


def _checked(trace: Trace) -> bool:
    return trace_checked(trace.pk)


def _store(trace: Trace, spans: list[Span] | None, locked: Trace | None) -> list[RedFlag]:
    """Detect and store, under the caller's trace row lock (`locked`, the row as locked); the
    stored flags, as `_stored` reads them (in order, each with its span)."""
    spans = trace_spans(trace) if spans is None else spans
    rules = flag_rules_for(trace)
    if locked is not None:
        # counted by the failure rule the flags read by: one reading of the project's
        told = told_failures_count(spans, rules.failure_rule)
        told_failures_record(trace.pk, told, locked.told_error_count, locked.session_id)
    span_by_pk = {span.pk: span for span in spans}
    hits = red_flags_detect(trace, spans, rules)
    trace_flags_delete(trace.pk)
    flags = RedFlag.objects.bulk_create(
        RedFlag(trace=trace, span=span_by_pk.get(h.span_pk), kind=h.kind, detail=h.detail)
        for h in hits
    )
    trace_check_record(trace.pk)
    return flags


def red_flags_check(trace: Trace, spans: list[Span] | None = None) -> list[RedFlag]:
    """Compute the trace's red flags, store them in place of any earlier ones, and record
    that the trace was checked. `spans`, in trace order, saves a query."""
    with transaction.atomic():
        return _store(trace, spans, _trace_locked(trace))


def _still_current(spans: list[Span], loaded: Trace, locked: Trace) -> bool:
    """Whether spans loaded with `loaded` are all the trace has now: no span arrived since
    (ingest stamps the trace), and their order is the check's own (position, then time)."""
    if (locked.last_span_received_at, locked.span_count) != (
        loaded.last_span_received_at,
        loaded.span_count,
    ):
        return False
    return all(a.position < b.position for a, b in zip(spans, spans[1:], strict=False))


def red_flags_ensure(trace: Trace, spans: list[Span] | None = None) -> list[RedFlag]:
    """The trace's stored red flags; a trace never checked (judged before it completed, or
    changed by late spans) is checked now, once. `spans`, as loaded with `trace`, are used
    when no span has arrived since."""
    if _checked(trace):
        return _stored(trace)
    with transaction.atomic():
        locked = _trace_locked(trace)
        # Asked again after the lock: a check that held it may have stored them meanwhile.
        if locked is None or _checked(trace):
            return _stored(trace)
        if spans is not None and not _still_current(spans, trace, locked):
            spans = None
        return _store(trace, spans, locked)


def red_flags_recheck(checked: list[int]) -> int:
    """Check again these traces, each checked before spans arrived late. Returns how many."""
    if not checked:
        return 0
    for trace in Trace.objects.filter(pk__in=checked).select_related("project"):
        red_flags_check(trace)
    return len(checked)
