"""What a golden example's reference holds a run to, and whether that is anything but the
outcome: an example whose matcher checks no step passes a run that called no tool, or the
wrong one, on its answer alone. Its page, the import and the gate report say so."""

from __future__ import annotations

from evalsite_checks.effects import tool_definitions, tool_effect_default
from evalsite_checks.matchers import AUTO
from evalsite_checks.scoring import reference_checked_steps


def reference_effects(reference: list[dict], context: dict | None) -> dict[str, str]:
    """Read or write for each reference tool, from the example's own tool definitions, else
    from the tool's name (what a project catalogue starts from)."""
    definitions = tool_definitions(context)
    return {
        step.get("tool", ""): tool_effect_default(
            step.get("tool", ""), definitions.get(step.get("tool", ""))
        )
        for step in reference
        if isinstance(step, dict)
    }


def checks_only_outcome(content: dict, matcher: str = AUTO) -> bool:
    """Whether `matcher` checks no step of the example's reference trajectory."""
    reference = [s for s in content.get("reference_trajectory") or [] if isinstance(s, dict)]
    effects = reference_effects(reference, content.get("context"))
    return not reference_checked_steps(reference, effects, matcher)


def outcome_only_note(matcher: str = AUTO) -> str:
    """The sentence a curator reads wherever such an example is shown."""
    return (
        f"Checks nothing but the outcome: the {matcher} matcher holds a run to no step of this "
        "reference trajectory, so a run that calls no tool, or the wrong one, passes on its "
        "answer alone. Add the steps the answer depends on, or mark fewer steps optional."
    )
