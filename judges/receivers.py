"""Receives the traces -> judges hand-offs: judge settled traces online, mark late ones stale."""

from django.dispatch import receiver

from judges.services import trace_judge_online, verdicts_mark_stale
from traces.signals import spans_ingested, trace_completed


@receiver(trace_completed, dispatch_uid="judges.judge_online")
def judge_completed_trace(sender, trace, **kwargs):
    trace_judge_online(trace)


@receiver(spans_ingested, dispatch_uid="judges.mark_stale")
def mark_verdicts_stale(sender, trace_ids, **kwargs):
    verdicts_mark_stale(trace_ids)
