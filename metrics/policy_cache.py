"""Projects' guardrail policies as the checks read them, each read at most once per
POLICY_REMEMBERED_SECONDS in a process: the red-flag check runs on every pass that writes a
verdict, the guardrail check in an agent's loop. Saving a policy or project empties every such
copy in this process (metrics.receivers)."""

from core.remembered import Remembered
from metrics.models import GuardrailPolicy

POLICY_REMEMBERED_SECONDS = 5.0
_policy_copies: list[Remembered] = []


def policy_copy() -> Remembered:
    """A new per-process copy of something read with a project's guardrail policy."""
    copy: Remembered = Remembered(POLICY_REMEMBERED_SECONDS)
    _policy_copies.append(copy)
    return copy


def policy_copies_forget() -> None:
    for copy in _policy_copies:
        copy.clear()


policies_by_project: Remembered[GuardrailPolicy | None] = policy_copy()


def project_policy_remembered(project_id: int | None) -> GuardrailPolicy | None:
    return policies_by_project.get(
        project_id, lambda: GuardrailPolicy.objects.filter(project_id=project_id).first()
    )
