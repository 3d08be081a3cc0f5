"""Projects' guardrail policies and tool failure rules as the checks read them, each read at
most once per POLICY_REMEMBERED_SECONDS in a process: the red-flag check runs on every pass
that writes a verdict, the guardrail check in an agent's loop. Saving a policy or project
empties every such copy in this process (metrics.receivers)."""

from core.remembered import Remembered
from metrics.models import GuardrailPolicy
from traces.ingest.failures import FailureRule, project_failure_rule, trace_failure_rule
from traces.models import Trace

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


failure_rules_by_project: Remembered[FailureRule] = policy_copy()


def trace_failure_rule_remembered(trace: Trace) -> FailureRule:
    """How the trace's project reads a tool result's failure: from its project when the trace
    loaded it, else as remembered for the project."""
    if Trace._meta.get_field("project").is_cached(trace):
        return project_failure_rule(trace.project)
    return failure_rules_by_project.get(trace.project_id, lambda: trace_failure_rule(trace))
