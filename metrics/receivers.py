"""Receives the traces -> metrics hand-off: a settled trace gets its red flags checked and its
tools catalogued, so curators can say what each does before any run is scored. A saved project
or guardrail policy is read afresh by the next red-flag or guardrail check."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from evalsite_checks.effects import tool_definitions

from metrics.attribution import span_components_assign
from metrics.effects import tool_catalogue_ensure
from metrics.models import GuardrailPolicy
from metrics.policy_cache import policy_copies_forget
from metrics.redflag_store import red_flags_check
from traces.models import Project, SpanKind
from traces.signals import trace_completed


@receiver(trace_completed, dispatch_uid="metrics.red_flags")
def check_completed_trace(sender, trace, **kwargs):
    span_components_assign(trace)
    red_flags_check(trace)
    called = trace.spans.filter(kind=SpanKind.TOOL).values_list("tool_name", flat=True)
    tool_catalogue_ensure(trace.project, tool_definitions(trace.context), called)


@receiver(post_save, sender=GuardrailPolicy, dispatch_uid="metrics.guardrail_policy_saved")
@receiver(post_delete, sender=GuardrailPolicy, dispatch_uid="metrics.guardrail_policy_deleted")
@receiver(post_save, sender=Project, dispatch_uid="metrics.guardrail_project_saved")
@receiver(post_delete, sender=Project, dispatch_uid="metrics.guardrail_project_deleted")
def guardrail_policies_forget(sender, **kwargs):
    """A changed policy or project counts from the next check made by this process."""
    policy_copies_forget()
