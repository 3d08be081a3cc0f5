"""Projects' guardrail policies as the red-flag check reads them, each read at most once per
POLICY_REMEMBERED_SECONDS in a process: the check runs on every pass that writes a verdict.
Saving a policy or project empties this process's copy (metrics.receivers)."""

from core.remembered import Remembered
from metrics.models import GuardrailPolicy

POLICY_REMEMBERED_SECONDS = 5.0
policies_by_project: Remembered[GuardrailPolicy | None] = Remembered(POLICY_REMEMBERED_SECONDS)


def project_policy_remembered(project_id: int | None) -> GuardrailPolicy | None:
    return policies_by_project.get(
        project_id, lambda: GuardrailPolicy.objects.filter(project_id=project_id).first()
    )
