"""A red-flag rule drafted from what a topic's traces share: the golden rule language
(metrics.rules) that fires on most of the topic's failed traces and on few of the
traces that passed."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from evalsite_checks.rules import red_flag_rule_errors

from metrics.models import RedFlag

# A draft must fire on at least this share of the topic's failures, and more often there than
# on passing traces.
MIN_SHARE_IN_TOPIC = 0.6


@dataclass(frozen=True)
class ToolOrder:
    """What the rules read of one trace: where each tool is first called, how often, and the
    red flags; each rule is then answered without walking the calls again."""

    first: dict[str, int]
    calls: Counter
    flags: frozenset[str]

    @classmethod
    def of(cls, facts) -> ToolOrder:
        first: dict[str, int] = {}
        for index, name in enumerate(facts.tool_names):
            first.setdefault(name, index)
        return cls(first, Counter(facts.tool_names), frozenset(facts.red_flags))

    def fires(self, rule: tuple) -> bool:
        match rule:
            case ("called_before", tool, prerequisite):
                # The tool's first call has no call of the prerequisite before it.
                return (
                    tool in self.first and self.first.get(prerequisite, 1 << 30) > self.first[tool]
                )
            case ("never_called", tool):
                return tool in self.first
            case ("max_calls", tool, limit):
                return self.calls[tool] > limit
            case ("generic_flag", kind):
                return kind in self.flags
        return False


def _candidates(members: list[ToolOrder], passing: list[ToolOrder]) -> list[tuple]:
    tools = sorted({tool for order in members for tool in order.first})
    # A prerequisite worth a rule is one the passing traces call before the tool.
    before: dict[str, set[str]] = {tool: set() for tool in tools}
    for order in passing:
        for tool in tools:
            if tool in order.first:
                before[tool].update(p for p, at in order.first.items() if at < order.first[tool])
    rules: list[tuple] = [("never_called", tool) for tool in tools]
    rules += [("max_calls", tool, 1) for tool in tools]
    rules += [("called_before", tool, p) for tool in tools for p in sorted(before[tool])]
    rules += [("generic_flag", kind) for kind in sorted({f for o in members for f in o.flags})]
    return rules


def _as_rule(rule: tuple) -> dict:
    keys = {
        "called_before": ("tool", "prerequisite"),
        "never_called": ("tool",),
        "max_calls": ("tool", "limit"),
        "generic_flag": ("kind",),
    }[rule[0]]
    return {"rule": rule[0], **dict(zip(keys, rule[1:], strict=True))}


class RuleDrafter:
    """Drafts rules for every topic of a build against the same passing traces, counting how
    often each candidate fires on them once."""

    def __init__(self, passing_facts: list):
        self.passing = [ToolOrder.of(facts) for facts in passing_facts]
        self.fires_on_passing: dict[tuple, float] = {}

    def _share_passing(self, rule: tuple) -> float:
        if rule not in self.fires_on_passing:
            hits = sum(order.fires(rule) for order in self.passing)
            self.fires_on_passing[rule] = hits / len(self.passing) if self.passing else 0.0
        return self.fires_on_passing[rule]

    def draft(self, failed_facts: list) -> dict:
        """{"rule", "text", "fires_in_topic", "fires_elsewhere"} for the rule that best tells
        the topic's failed traces from the passing ones, or {} when none fires on most."""
        members = [ToolOrder.of(facts) for facts in failed_facts]
        if not members:
            return {}
        best, best_key = None, None
        for rule in _candidates(members, self.passing):
            share_in = sum(order.fires(rule) for order in members) / len(members)
            if share_in < MIN_SHARE_IN_TOPIC:
                continue
            share_out = self._share_passing(rule)
            if share_out >= share_in:
                continue
            # Ties go to a prerequisite rule (it names what was skipped), then to the order.
            key = (round(share_in - share_out, 6), rule[0] == "called_before")
            if best_key is None or key > best_key:
                best, best_key = (rule, share_in, share_out), key
        if best is None:
            return {}
        rule, share_in, share_out = best
        as_dict = _as_rule(rule)
        if red_flag_rule_errors(as_dict, RedFlag.Kind.values):
            return {}
        return {
            "rule": as_dict,
            "text": rule_text(as_dict),
            "fires_in_topic": round(share_in, 3),
            "fires_elsewhere": round(share_out, 3),
        }


def rule_text(rule: dict) -> str:
    match rule["rule"]:
        case "called_before":
            return f"{rule['tool']} called before {rule['prerequisite']}"
        case "never_called":
            return f"{rule['tool']} called at all"
        case "max_calls":
            return f"{rule['tool']} called more than {rule['limit']} time(s)"
        case "generic_flag":
            return f"the {rule['kind']} red flag fired"
    return rule["rule"]
