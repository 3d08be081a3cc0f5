"""The red-flag rule language of golden examples, evaluated against the agent's tool calls in
order. A rule "fires" when the agent did the bad thing.

Rule shapes (every key is required unless marked optional):

``{"rule": "called_before", "tool": T, "prerequisite": P}``
    Fires when ``T`` is called while no call of ``P`` came before it.
    Example: cancel_order called before get_recent_orders.

``{"rule": "param_from_output", "tool": T, "param": NAME, "source_tool": S}``
    Fires when a call of ``T`` passes input ``NAME`` with a value that appears in no output of
    an earlier ``S`` call. Example: cancel_order's order_id not present in get_recent_orders
    output (a hallucinated id).

``{"rule": "never_called", "tool": T}``
    Fires when ``T`` is called at all, e.g. a destructive tool on an ambiguous request the
    agent should have asked about.

``{"rule": "max_calls", "tool": T, "limit": N}``
    Fires when ``T`` is called more than ``N`` times (loops, retries without change). N >= 1.

``{"rule": "generic_flag", "kind": K}``
    Fires when the generic check ``K`` (e.g. ``hallucinated_parameter``) fired on the trace:
    the example declares that flag blocking, so a trial with it fails.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from evalsite_checks.flag_hit import FlagHit
from evalsite_checks.parameters import values_equivalent
from evalsite_checks.steps import ToolStep, leaf_values

# Each rule's keys and their types, and the RedFlag kind it reports as, so golden and generic
# flags count together (generic_flag reports the generic check it names).
RULE_SHAPES: dict[str, dict[str, type]] = {
    "called_before": {"tool": str, "prerequisite": str},
    "param_from_output": {"tool": str, "param": str, "source_tool": str},
    "never_called": {"tool": str},
    "max_calls": {"tool": str, "limit": int},
    "generic_flag": {"kind": str},
}
RULE_KINDS = {
    "called_before": "prerequisite",
    "param_from_output": "hallucinated_parameter",
    "never_called": "forbidden_call",
    "max_calls": "loop",
}


def red_flag_rule_errors(rule: Any, generic_kinds: Collection[str]) -> list[str]:
    """What is wrong with one rule, as short messages; empty when the rule is valid.

    `generic_kinds` are the generic checks a `generic_flag` may name (the server's RedFlag
    kinds)."""
    if not isinstance(rule, dict):
        return ["must be an object with a 'rule' key"]
    name = rule.get("rule")
    if name not in RULE_SHAPES:
        return [f"unknown rule {name!r}; use one of {', '.join(sorted(RULE_SHAPES))}"]
    shape = RULE_SHAPES[name]
    errors = []
    for key, kind in shape.items():
        value = rule.get(key)
        if kind is str and not (isinstance(value, str) and value.strip()):
            errors.append(f"'{key}' must be a non-empty string")
        if kind is int and not (isinstance(value, int) and not isinstance(value, bool)):
            errors.append(f"'{key}' must be an integer")
        elif kind is int and value < 1:
            errors.append(f"'{key}' must be at least 1")
    if name == "generic_flag" and rule.get("kind") not in generic_kinds:
        errors.append(f"'kind' must be one of {', '.join(generic_kinds)}")
    extra = set(rule) - set(shape) - {"rule"}
    if extra:
        errors.append(f"unexpected keys: {', '.join(sorted(extra))}")
    return errors


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
