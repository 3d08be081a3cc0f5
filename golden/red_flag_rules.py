"""Red flags on a golden example: a sentence for people, and where possible a checkable rule.

A red flag is ``{"text": str, "rule": dict | None}``. The trajectory checker evaluates the rule
against the agent's tool calls in order; a rule "fires" when the agent did the bad thing.

The rule language (each shape, what fires it, its validation) lives in evalsite_checks/rules.py
(clients/evalsite-checks), which the pytest plugin asserts with too. Every rule that fires
fails the trial (see golden/evals/README.md, "The pass rule").
"""

from typing import Any

from evalsite_checks.rules import red_flag_rule_errors

from metrics.models import RedFlag


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
            problems = red_flag_rule_errors(rule, RedFlag.Kind.values)
            if problems:
                errors[f"{path}.rule"] = "; ".join(problems)
        extra = set(flag) - {"text", "rule"}
        if extra:
            errors[path] = f"unexpected keys: {', '.join(sorted(extra))}"
    return errors


def red_flag_normalize(flag: dict) -> dict:
    """The stored form of a valid red flag: always both keys, text stripped."""
    return {"text": flag["text"].strip(), "rule": flag.get("rule")}
