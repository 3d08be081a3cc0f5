"""Receives the traces -> judges hand-offs: judge settled traces online, and say of those not
settled yet that they wait; when late spans come, mark their verdicts stale and check their
red flags again."""

from django.db import transaction
from django.dispatch import receiver

from judges.online_health import traces_arrived_unsettled
from judges.services import trace_judge_online, verdicts_mark_stale
from metrics.redflag_store import red_flags_recheck
from traces.signals import spans_ingested, trace_completed


@receiver(trace_completed, dispatch_uid="judges.judge_online")
def judge_completed_trace(sender, trace, **kwargs):
    trace_judge_online(trace)


@receiver(spans_ingested, dispatch_uid="judges.mark_stale")
def recheck_traces_with_late_spans(sender, trace_ids, late_trace_ids=None, session_ids=None, **kw):
    # After the commit: a trace posted whole has settled by then and is decided at once.
    arrived = list(trace_ids)
    transaction.on_commit(lambda: traces_arrived_unsettled(arrived))
    late = list(trace_ids if late_trace_ids is None else late_trace_ids)
    red_flags_recheck(verdicts_mark_stale(late, session_ids))
