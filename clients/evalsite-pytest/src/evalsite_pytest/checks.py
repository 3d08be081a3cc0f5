"""Assertions on the trajectory an agent made, decided as an eval run decides a trial.

The path and parameters are scored by `evalsite_checks.scoring.trajectory_score`, the
example's red-flag rules by `evalsite_checks.rules`, and the verdict by the server's pass rule
(`evalsite_checks.pass_rule`). What needs a model or the server is left out: the outcome and
the expected behaviour (LLM checks), the project's curated tool effects (give them as
`effects`) and the generic red flags. Calls made in a ToolWorld also meet the rules that know
what it injected (`evalsite_checks.worlds.flags`), as a served run's do.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from evalsite_checks.effects import tool_definitions, tool_effect_default
from evalsite_checks.flag_hit import FlagHit
from evalsite_checks.matchers import AUTO
from evalsite_checks.pass_rule import PassCriteria, TrialDecision, trial_decide
from evalsite_checks.rules import golden_rules_check
from evalsite_checks.scoring import TrajectoryScore, trajectory_score
from evalsite_checks.steps import ToolStep
from evalsite_checks.worlds.flags import world_red_flags
from evalsite_checks.worlds.schema import variant_content

from evalsite_pytest.diff import trajectory_diff


@dataclass
class TrajectoryCheck:
    """The checks of one trajectory against one example, and the pass rule's verdict."""

    example_key: str
    variant: str
    reference: list[dict]
    steps: list[ToolStep]
    score: TrajectoryScore
    red_flags: list[FlagHit]
    decision: TrialDecision

    @property
    def passed(self) -> bool:
        return self.decision.passed is True

    def diff(self) -> str:
        return trajectory_diff(self)


def _as_steps(calls: Any) -> list[ToolStep]:
    """A ToolWorld's calls, ToolSteps, or dicts with `tool` and `inputs` (or `arguments`)."""
    if hasattr(calls, "steps"):
        return calls.steps()
    steps = []
    for index, call in enumerate(calls):
        if isinstance(call, ToolStep):
            # The diff finds each call's score by its span id.
            steps.append(call if call.span_id else replace(call, span_id=f"call {index + 1}"))
            continue
        if not (isinstance(call, dict) and isinstance(call.get("tool"), str)):
            raise TypeError(f"call {index + 1} must be a ToolStep or a dict with a 'tool' name")
        steps.append(
            ToolStep(
                tool=call["tool"],
                inputs=call.get("inputs", call.get("arguments", {})),
                output=call.get("output"),
                failed=bool(call.get("failed", False)),
                span_id=f"call {index + 1}",
            )
        )
    return steps


def example_effects(content: dict, called: list[str], overrides: dict | None) -> dict[str, str]:
    """Read or write per tool defined in the example's context or called, by the default its
    definition and name imply, then the caller's choices, as a project's curated catalogue
    overrides the defaults on the server."""
    definitions = tool_definitions(content.get("context"))
    names = [*definitions, *called]
    effects = {name: tool_effect_default(name, definitions.get(name)) for name in names}
    return {**effects, **(overrides or {})}


def trajectory_check(
    calls: Any,
    example: dict,
    *,
    variant: str | None = None,
    matcher: str = AUTO,
    effects: dict[str, str] | None = None,
    criteria: PassCriteria | None = None,
    final_answer: str = "",
) -> TrajectoryCheck:
    """Check the agent's calls against a golden example (a fault variant's trial is held to
    the red-flag rules; its path is the variant's expected behaviour, which a model judges).

    Calls made in a ToolWorld also meet the rules that know what it injected; with the
    agent's `final_answer`, claiming success after an injected failure is one of them."""
    if variant is None:
        variant = getattr(calls, "variant_name", "")
    steps = _as_steps(calls)
    content = variant_content(example, variant)
    reference = content.get("reference_trajectory") or []
    tool_effects = example_effects(content, [s.tool for s in steps], effects)
    task, context = content.get("task") or "", content.get("context") or {}
    score = trajectory_score(
        reference, steps, task=task, context=context, matcher=matcher, effects=tool_effects
    )
    flags = golden_rules_check(content.get("red_flags") or [], steps)
    world_calls = getattr(calls, "calls", None)
    if world_calls is not None:
        flags += world_red_flags(
            world_calls,
            steps,
            task=task,
            context=context,
            final_answer=final_answer,
            effects=tool_effects,
        )
    metrics = {
        **score.as_dict(),
        "red_flags": [
            {"kind": f.kind, "span_id": f.span_id, "detail": f.detail, "sources": ["golden"]}
            for f in flags
        ],
    }
    # The outcome and the expected behaviour are judged by a model in an eval run, not here.
    judged_here = {k: v for k, v in content.items() if k != "expected_behavior"}
    decision = trial_decide(metrics, judged_here, criteria or PassCriteria())
    return TrajectoryCheck(
        example.get("key", ""), variant, reference, steps, score, flags, decision
    )


def assert_trajectory(calls: Any, example: dict, **options) -> TrajectoryCheck:
    """Fail the test, with an aligned diff, unless the trajectory passes; options as for
    `trajectory_check`."""
    check = trajectory_check(calls, example, **options)
    if not check.passed:
        raise AssertionError(check.diff())
    return check
