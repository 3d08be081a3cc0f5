"""Receives the traces -> judges hand-offs: judge settled traces online; when late spans come,
mark their verdicts stale and check their red flags again; a saved project or guardrail policy
is read afresh by the next check."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from judges.guardrails.check import project_policies
from judges.guardrails.models import GuardrailPolicy
from judges.services import trace_judge_online, verdicts_mark_stale
from judges.trajectory.policy_cache import policies_by_project
from judges.trajectory.redflag_store import red_flags_recheck_late
from traces.models import Project
from traces.signals import spans_ingested, trace_completed


@receiver(trace_completed, dispatch_uid="judges.judge_online")
def judge_completed_trace(sender, trace, **kwargs):
    trace_judge_online(trace)


@receiver(spans_ingested, dispatch_uid="judges.mark_stale")
def recheck_traces_with_late_spans(sender, trace_ids, late_trace_ids=None, session_ids=None, **kw):
    late = trace_ids if late_trace_ids is None else late_trace_ids
    verdicts_mark_stale(late, session_ids)
    if late:
        red_flags_recheck_late(late)


@receiver(post_save, sender=GuardrailPolicy, dispatch_uid="judges.guardrail_policy_saved")
@receiver(post_delete, sender=GuardrailPolicy, dispatch_uid="judges.guardrail_policy_deleted")
@receiver(post_save, sender=Project, dispatch_uid="judges.guardrail_project_saved")
@receiver(post_delete, sender=Project, dispatch_uid="judges.guardrail_project_deleted")
def guardrail_policies_forget(sender, **kwargs):
    """A changed policy or project counts from the next check made by this process."""
    project_policies.clear()
    policies_by_project.clear()
