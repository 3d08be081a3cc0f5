"""The one rule that decides whether a trial passed, with the reasons when it did not.

A trial passes when the path matched the reference (for tasks that write: exactly the
expected writes with the expected arguments), its parameters were right, none of the
example's own red-flag rules fired, no generic flag the example declares blocking fired, the
run was not truncated, refused or stopped on an error (an outcome reached so is not a clean
pass, however right it looks), the outcome holds, and the expected behaviour (adversarial
examples) was judged as shown. When a judge's reply could not be read, or the behaviour has no
verdict yet, the trial is undecided (None) and a person looks at it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# The stop flag (metrics.models.RedFlag.Kind.UNCLEAN_STOP): a run that ended so never passes.
UNCLEAN_STOP = "unclean_stop"


@dataclass(frozen=True)
class PassCriteria:
    outcome_min: float = 0.5
    parameter_min: float = 1.0
    behavior_min: float = 0.5


@dataclass
class TrialDecision:
    passed: bool | None
    reasons: list[str] = field(default_factory=list)
    undecided: list[str] = field(default_factory=list)


def blocking_kinds(content: dict) -> set[str]:
    """Generic flag kinds the example declares blocking with a `generic_flag` rule."""
    kinds = set()
    for flag in content.get("red_flags") or []:
        rule = flag.get("rule") if isinstance(flag, dict) else None
        if isinstance(rule, dict) and rule.get("rule") == "generic_flag":
            kinds.add(rule.get("kind"))
    return kinds


def trial_decide(metrics: dict, content: dict, criteria: PassCriteria) -> TrialDecision:
    """Apply the pass rule to one trial's metrics; reasons read as sentences for the page."""
    reasons: list[str] = []
    undecided: list[str] = []
    if not metrics.get("matched"):
        reasons.append(f"path: {metrics.get('reason') or 'the reference path was not followed'}")
    params = metrics.get("parameter_accuracy")
    if params is not None and params < criteria.parameter_min and metrics.get("matcher") != "state":
        reasons.append(f"parameters: accuracy {params:.2f}")
    blocking = blocking_kinds(content)
    for flag in metrics.get("red_flags") or []:
        if flag.get("kind") == UNCLEAN_STOP:
            reasons.append(f"stop: {flag['detail']}")
        elif "golden" in flag.get("sources", []) or flag.get("kind") in blocking:
            reasons.append(f"red flag {flag['kind']}: {flag['detail']}")
    outcome = metrics.get("outcome_score")
    if outcome is not None and outcome < criteria.outcome_min:
        reasons.append(
            f"outcome: {outcome:.2f} of the expected facts ({metrics['outcome_source']})"
        )
    if content.get("expected_behavior"):
        behavior = metrics.get("behavior_score")
        if behavior is None:
            undecided.append("expected behaviour has no agreed verdict yet")
        elif behavior < criteria.behavior_min:
            reasons.append(f"behaviour: judged {behavior:.2f} against the expected behaviour")
    if metrics.get("judge_unreadable"):
        undecided.append("a judge reply could not be read; sent to review")
    for check in metrics.get("judge_flipped") or []:
        undecided.append(f"the {check} check flipped between its two passes; sent to review")
    # The same rule fired on several calls reads once.
    reasons = list(dict.fromkeys(reasons))
    if reasons:
        return TrialDecision(False, reasons, undecided)
    return TrialDecision(None if undecided else True, reasons, undecided)
