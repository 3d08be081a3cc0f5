"""A saved project or guardrail policy is read afresh by the next runtime check."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from guardrails.check import project_policies
from metrics.models import GuardrailPolicy
from traces.models import Project


@receiver(post_save, sender=GuardrailPolicy, dispatch_uid="guardrails.guardrail_policy_saved")
@receiver(post_delete, sender=GuardrailPolicy, dispatch_uid="guardrails.guardrail_policy_deleted")
@receiver(post_save, sender=Project, dispatch_uid="guardrails.guardrail_project_saved")
@receiver(post_delete, sender=Project, dispatch_uid="guardrails.guardrail_project_deleted")
def guardrail_policies_forget(sender, **kwargs):
    """A changed policy or project counts from the next check made by this process."""
    project_policies.clear()
