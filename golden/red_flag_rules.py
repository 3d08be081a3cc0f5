"""Red flags on a golden example: a sentence for people, and where possible a checkable rule.

A red flag is ``{"text": str, "rule": dict | None}``. The trajectory checker evaluates the rule
against the agent's tool calls in order; a rule "fires" when the agent did the bad thing.

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

Every rule that fires fails the trial (see golden/evals/README.md, "The pass rule").
"""

from typing import Any

from judges.models import RedFlag

RULE_SHAPES: dict[str, dict[str, type]] = {
    "called_before": {"tool": str, "prerequisite": str},
    "param_from_output": {"tool": str, "param": str, "source_tool": str},
    "never_called": {"tool": str},
    "max_calls": {"tool": str, "limit": int},
    "generic_flag": {"kind": str},
}


def red_flag_rule_errors(rule: Any) -> list[str]:
    """What is wrong with one rule, as short messages; empty when the rule is valid."""
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
    if name == "generic_flag" and rule.get("kind") not in RedFlag.Kind.values:
        errors.append(f"'kind' must be one of {', '.join(RedFlag.Kind.values)}")
    extra = set(rule) - set(shape) - {"rule"}
    if extra:
        errors.append(f"unexpected keys: {', '.join(sorted(extra))}")
    return errors


def red_flags_errors(red_flags: Any) -> dict[str, str]:
    """Errors of a red-flag list keyed by path (``red_flags[1].rule``); empty when valid."""
    if not isinstance(red_flags, list):
        return {"red_flags": "must be a list of {text, rule} objects"}
    errors: dict[str, str] = {}
    for index, flag in enumerate(red_flags):
        path = f"red_flags[{index}]"
        if not isinstance(flag, dict):
            errors[path] = "must be an object with 'text' and optional 'rule'"
            continue
        text, rule = flag.get("text"), flag.get("rule")
        if not (isinstance(text, str) and text.strip()):
            errors[f"{path}.text"] = "must be a non-empty sentence"
        if rule is not None:
            problems = red_flag_rule_errors(rule)
            if problems:
                errors[f"{path}.rule"] = "; ".join(problems)
        extra = set(flag) - {"text", "rule"}
        if extra:
            errors[path] = f"unexpected keys: {', '.join(sorted(extra))}"
    return errors


def red_flag_normalize(flag: dict) -> dict:
    """The stored form of a valid red flag: always both keys, text stripped."""
    return {"text": flag["text"].strip(), "rule": flag.get("rule")}
