"""Red-flag rules written on golden examples, evaluated against the agent's tool calls in order.

Rule shapes: called_before {tool, prerequisite}, param_from_output {tool, param, source_tool},
never_called {tool}, max_calls {tool, limit}. A rule "fires" when the agent did the bad thing.
"""

from __future__ import annotations

from judges.trajectory.parameters import values_equivalent
from judges.trajectory.redflags import FlagHit
from judges.trajectory.steps import ToolStep, leaf_values

# The RedFlag kind each rule reports as, so golden and generic flags count together.
RULE_KINDS = {
    "called_before": "prerequisite",
    "param_from_output": "hallucinated_parameter",
    "never_called": "forbidden_call",
    "max_calls": "loop",
}


def _in_outputs(value, outputs) -> bool:
    return any(
        values_equivalent(leaf, value) is True
        for output in outputs
        for _k, leaf in leaf_values(output)
    )


def golden_rule_check(rule: dict, steps: list[ToolStep]) -> list[FlagHit]:
    """The hits of one rule; an unknown rule name is ignored (the example validator rejects it)."""
    name, tool = rule.get("rule"), rule.get("tool")
    kind = RULE_KINDS.get(name)
    hits: list[FlagHit] = []
    calls = 0
    for index, step in enumerate(steps):
        if step.tool != tool:
            continue
        calls += 1
        earlier = steps[:index]
        if name == "called_before":
            prerequisite = rule.get("prerequisite")
            if not any(s.tool == prerequisite and not s.failed for s in earlier):
                hits.append(
                    FlagHit(
                        kind, step.span_id, f"{tool} called before {prerequisite}.", step.span_pk
                    )
                )
        elif name == "param_from_output":
            param, source = rule.get("param"), rule.get("source_tool")
            inputs = step.inputs if isinstance(step.inputs, dict) else {}
            if param in inputs:
                outputs = [s.output for s in earlier if s.tool == source]
                if not _in_outputs(inputs[param], outputs):
                    hits.append(
                        FlagHit(
                            kind,
                            step.span_id,
                            f"{tool}({param}={inputs[param]!r}) is not in any earlier "
                            f"{source} output.",
                            step.span_pk,
                        )
                    )
        elif name == "never_called":
            hits.append(
                FlagHit(kind, step.span_id, f"{tool} must not be called here.", step.span_pk)
            )
        elif name == "max_calls" and calls == int(rule.get("limit") or 0) + 1:
            hits.append(
                FlagHit(
                    kind,
                    step.span_id,
                    f"{tool} called more than {rule['limit']} times.",
                    step.span_pk,
                )
            )
    return hits


def golden_rules_check(red_flags: list[dict], steps: list[ToolStep]) -> list[FlagHit]:
    """Evaluate every checkable red flag of a golden example (`{"text", "rule"}`)."""
    hits: list[FlagHit] = []
    for flag in red_flags or []:
        rule = flag.get("rule") if isinstance(flag, dict) else None
        if isinstance(rule, dict):
            hits += golden_rule_check(rule, steps)
    return hits
