"""Writes of the guardrails: a decision the agent asked to keep, a curator's thresholds."""

from __future__ import annotations

from django.db import transaction

from core.errors import ApplicationError
from guardrails.check import GuardrailResult
from guardrails.models import GuardrailDecision
from metrics.models import GuardrailPolicy
from metrics.signals import guardrail_policy_changed
from traces.models import Project


def guardrail_decision_record(project: Project, result: GuardrailResult, user=None):
    """Keep a decision under the trace id the agent exports under, for its trace page."""
    if not result.trace_named:
        raise ApplicationError(
            "Recording needs the id the trace is exported under: send `trace_id`.",
            field="trace_id",
        )
    return GuardrailDecision.objects.create(
        project=project,
        trace_external_id=result.trace_external_id,
        decision=result.decision,
        blocked_by=next((c["check"] for c in result.checks if c["blocking"]), ""),
        next_tool=result.next_tool[:200],
        steps=result.steps,
        checks=result.checks,
        created_by=user if user is not None and user.is_authenticated else None,
    )


def prerequisites_parse(text: str) -> dict[str, list[str]]:
    """`tool: first, second` per line into {"tool": ["first", "second"]}."""
    found: dict[str, list[str]] = {}
    for number, line in enumerate((text or "").splitlines(), start=1):
        if not line.strip():
            continue
        tool, colon, required = line.partition(":")
        names = [name.strip() for name in required.split(",") if name.strip()]
        if not colon or not tool.strip() or not names:
            raise ApplicationError(
                f"Line {number}: write `tool: prerequisite, another`.", field="tool_prerequisites"
            )
        found.setdefault(tool.strip(), []).extend(n for n in names if n != tool.strip())
    return found


def prerequisites_text(prerequisites: dict[str, list[str]]) -> str:
    return "\n".join(f"{tool}: {', '.join(reqs)}" for tool, reqs in sorted(prerequisites.items()))


def _policy_values(policy: GuardrailPolicy) -> dict:
    return {
        "loop_repeats": policy.loop_repeats,
        "max_steps": policy.max_steps,
        "tool_prerequisites": policy.tool_prerequisites,
    }


def guardrail_policy_set(
    *,
    project: Project,
    loop_repeats: int,
    max_steps: int,
    tool_prerequisites: dict[str, list[str]],
    user=None,
) -> GuardrailPolicy:
    """A curator's thresholds for a project; audited downstream through the signal."""
    if not 2 <= loop_repeats <= 100:
        raise ApplicationError("Between 2 and 100 calls.", field="loop_repeats")
    if not 1 <= max_steps <= 10_000:
        raise ApplicationError("Between 1 and 10,000 tool calls.", field="max_steps")
    with transaction.atomic():
        policy = GuardrailPolicy.objects.select_for_update().filter(project=project).first()
        before = _policy_values(policy) if policy else None
        policy = policy or GuardrailPolicy(project=project)
        policy.loop_repeats, policy.max_steps = loop_repeats, max_steps
        policy.tool_prerequisites = tool_prerequisites
        policy.updated_by = user if user is not None and user.is_authenticated else None
        policy.save()
        guardrail_policy_changed.send(
            sender=GuardrailPolicy, policy=policy, user=policy.updated_by, before=before
        )
    return policy
