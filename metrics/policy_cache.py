"""What the checks read of a project, its guardrail policy and how it reads a tool result's
failure, each project read at most once per POLICY_REMEMBERED_SECONDS in a process: the
red-flag check runs on every pass that writes a verdict, the guardrail check in an agent's
loop. Saving a policy or project empties every such copy in this process (metrics.receivers)."""

from dataclasses import dataclass

from core.remembered import Remembered
from metrics.models import GuardrailPolicy
from traces.ingest.failures import DEFAULT_FAILURE_RULE, FailureRule, project_failure_rule
from traces.models import Project, Trace

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


@dataclass(frozen=True)
class ProjectChecks:
    """A project as the checks read it: its guardrail policy, if it has one, and its rule for a
    tool result's failure."""

    policy: GuardrailPolicy | None
    failure_rule: FailureRule


policies_by_project: Remembered[ProjectChecks] = policy_copy()


def project_checks_remembered(project_id: int | None) -> ProjectChecks:
    return policies_by_project.get(project_id, lambda: _project_checks_read(project_id))


def project_policy_remembered(project_id: int | None) -> GuardrailPolicy | None:
    return project_checks_remembered(project_id).policy


def _project_checks_read(project_id: int | None) -> ProjectChecks:
    # one query for both: the policy rides along with its project
    project = Project.objects.select_related("guardrail_policy").filter(pk=project_id).first()
    if project is None:
        return ProjectChecks(None, DEFAULT_FAILURE_RULE)
    return ProjectChecks(getattr(project, "guardrail_policy", None), project_failure_rule(project))


def trace_failure_rule_remembered(trace: Trace) -> FailureRule:
    """How the trace's project reads a tool result's failure: from its project when the trace
    loaded it, else as remembered for the project."""
    if Trace._meta.get_field("project").is_cached(trace):
        return project_failure_rule(trace.project)
    return project_checks_remembered(trace.project_id).failure_rule
