"""Receives the traces -> judges hand-offs: judge settled traces online; when late spans come,
mark their verdicts stale and check their red flags again."""

from django.dispatch import receiver

from judges.services import trace_judge_online, verdicts_mark_stale
from judges.trajectory.redflag_store import red_flags_recheck_late
from traces.signals import spans_ingested, trace_completed


@receiver(trace_completed, dispatch_uid="judges.judge_online")
def judge_completed_trace(sender, trace, **kwargs):
    trace_judge_online(trace)


@receiver(spans_ingested, dispatch_uid="judges.mark_stale")
def recheck_traces_with_late_spans(sender, trace_ids, **kwargs):
    verdicts_mark_stale(trace_ids)
    red_flags_recheck_late(trace_ids)
