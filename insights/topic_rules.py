"""A red-flag rule drafted from what a topic's traces share: the golden rule language
(judges.trajectory.rules) that fires on most of the topic and on few of the other traces."""

from __future__ import annotations

from judges.trajectory.rules import red_flag_rule_errors

# A draft must fire on at least this share of the topic, and more often in it than outside.
MIN_SHARE_IN_TOPIC = 0.6


def _called_before_fires(names: list[str], tool: str, prerequisite: str) -> bool:
    seen_prerequisite = False
    for name in names:
        if name == prerequisite:
            seen_prerequisite = True
        elif name == tool and not seen_prerequisite:
            return True
    return False


def _fires(rule: dict, facts) -> bool:
    names = facts.tool_names
    match rule["rule"]:
        case "called_before":
            return _called_before_fires(names, rule["tool"], rule["prerequisite"])
        case "never_called":
            return rule["tool"] in names
        case "max_calls":
            return names.count(rule["tool"]) > rule["limit"]
        case "generic_flag":
            return rule["kind"] in facts.red_flags
    return False


def _candidates(members, others) -> list[dict]:
    tools = sorted({name for facts in members for name in facts.tool_names})
    every_tool = sorted({name for facts in (*members, *others) for name in facts.tool_names})
    rules = [{"rule": "never_called", "tool": tool} for tool in tools]
    rules += [{"rule": "max_calls", "tool": tool, "limit": 1} for tool in tools]
    rules += [
        {"rule": "called_before", "tool": tool, "prerequisite": prerequisite}
        for tool in tools
        for prerequisite in every_tool
        if prerequisite != tool
    ]
    kinds = sorted({kind for facts in members for kind in facts.red_flags})
    rules += [{"rule": "generic_flag", "kind": kind} for kind in kinds]
    return rules


def _prerequisite_seen(rule: dict, others) -> int:
    """How many other traces call the rule's prerequisite before its tool: a rule about a real
    habit of the agent is preferred over one about a tool that merely never came first."""
    if rule["rule"] != "called_before":
        return 0
    return sum(
        1
        for facts in others
        if rule["tool"] in facts.tool_names
        and not _called_before_fires(facts.tool_names, rule["tool"], rule["prerequisite"])
    )


def topic_rule_draft(members: list, others: list) -> dict:
    """{"rule", "text", "fires_in_topic", "fires_elsewhere"} for the rule that best tells
    `members` (a topic's failed traces) from `others` (the traces that passed), or {} when no
    rule fires on most of the members."""
    if not members:
        return {}
    best, best_key = None, None
    for rule in _candidates(members, others):
        share_in = sum(_fires(rule, facts) for facts in members) / len(members)
        if share_in < MIN_SHARE_IN_TOPIC:
            continue
        share_out = sum(_fires(rule, facts) for facts in others) / len(others) if others else 0.0
        if share_out >= share_in:
            continue
        key = (round(share_in - share_out, 6), _prerequisite_seen(rule, others))
        if best_key is None or key > best_key:
            best, best_key = (rule, share_in, share_out), key
    if best is None:
        return {}
    rule, share_in, share_out = best
    if red_flag_rule_errors(rule):
        return {}
    return {
        "rule": rule,
        "text": rule_text(rule),
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
