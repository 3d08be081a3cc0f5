"""Deciding when a trace is complete, so judging starts on the whole trajectory."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from traces.models import Trace
from traces.signals import trace_completed

# A trace whose root never arrives (its parent lives in a service that does not export here)
# is still judged, after this many settle times without a new span.
ROOTLESS_SETTLE_FACTOR = 10


def traces_settled_ids(*, limit: int = 500, now=None) -> list[int]:
    """Traces whose root span arrived and ended, with no span for TRACE_SETTLE_SECONDS
    (or, without a root, for ROOTLESS_SETTLE_FACTOR times as long)."""
    now = now or timezone.now()
    settle = settings.TRACE_SETTLE_SECONDS
    cutoff = now - timedelta(seconds=settle)
    rootless_cutoff = now - timedelta(seconds=settle * ROOTLESS_SETTLE_FACTOR)
    return list(
        Trace.objects.filter(completed_at__isnull=True, last_span_received_at__lte=cutoff)
        .filter(
            (Q(ended_at__isnull=False) & ~Q(root_span_id=""))
            | Q(last_span_received_at__lte=rootless_cutoff)
        )
        .order_by("last_span_received_at")
        .values_list("pk", flat=True)[:limit]
    )


def trace_complete(trace_id: int, *, now=None, whole: bool = False) -> bool:
    """Mark one settled trace complete and send trace_completed, once; False if not ours.

    `whole` is for traces that arrive in one request (span trees, transcripts): they are
    complete on arrival, with no settle wait.
    """
    now = now or timezone.now()
    cutoff = now if whole else now - timedelta(seconds=settings.TRACE_SETTLE_SECONDS)
    with transaction.atomic():
        # The conditional update is the claim: two sweeps never complete a trace twice, and a
        # span that arrived since the scan keeps the trace open.
        claimed = Trace.objects.filter(
            pk=trace_id, completed_at__isnull=True, last_span_received_at__lte=cutoff
        ).update(completed_at=now)
        if not claimed:
            return False
        trace = Trace.objects.select_related("project").get(pk=trace_id)
        trace_completed.send(sender=Trace, trace=trace)
    return True
