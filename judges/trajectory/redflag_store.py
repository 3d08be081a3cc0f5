"""A trace's red flags are computed once, when the trace completes, and again when spans
arrive after that; the check is recorded, and every other reader (reconciliation, the review
queue, eval scoring, the pages) reads the stored rows."""

from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from judges.models import RedFlag, RedFlagCheck
from judges.trajectory.redflags import red_flags_detect
from traces.models import Span, Trace


def _stored(trace: Trace) -> list[RedFlag]:
    return list(trace.red_flags.select_related("span").order_by("pk"))


def red_flags_check(trace: Trace, spans: list[Span] | None = None) -> list[RedFlag]:
    """Compute the trace's red flags, store them in place of any earlier ones, and record
    that the trace was checked. `spans`, in trace order, saves a query."""
    with transaction.atomic():
        # The row lock keeps two concurrent checks from storing the flags twice.
        Trace.objects.select_for_update().filter(pk=trace.pk).first()
        hits = red_flags_detect(trace, spans)
        trace.red_flags.all().delete()
        RedFlag.objects.bulk_create(
            RedFlag(trace=trace, span_id=hit.span_pk, kind=hit.kind, detail=hit.detail)
            for hit in hits
        )
        RedFlagCheck.objects.update_or_create(trace=trace, defaults={"checked_at": timezone.now()})
        return _stored(trace)


def red_flags_ensure(trace: Trace, spans: list[Span] | None = None) -> list[RedFlag]:
    """The trace's stored red flags; a trace never checked (judged before it completed, or
    changed by late spans) is checked now, once."""
    if RedFlagCheck.objects.filter(trace_id=trace.pk).exists():
        return _stored(trace)
    with transaction.atomic():
        Trace.objects.select_for_update().filter(pk=trace.pk).first()
        if RedFlagCheck.objects.filter(trace_id=trace.pk).exists():
            return _stored(trace)
        return red_flags_check(trace, spans)


def red_flags_recheck_late(trace_ids: Iterable[int]) -> int:
    """Spans arrived for these traces: check again the ones already checked. Returns how many."""
    checked = list(
        RedFlagCheck.objects.filter(trace_id__in=list(trace_ids)).values_list("trace_id", flat=True)
    )
    for trace in Trace.objects.filter(pk__in=checked).select_related("project"):
        red_flags_check(trace)
    return len(checked)
