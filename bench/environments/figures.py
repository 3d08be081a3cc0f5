"""How well evalsite's per-trial metrics agree with an environment's own reward and labels."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from sklearn.metrics import roc_auc_score

# Metric -> how a trial's value reads as "looks successful" (higher is more successful).
SCORES = {
    "pass rule": lambda m, passed: {True: 1.0, None: 0.5, False: 0.0}[passed],
    "path matched": lambda m, passed: float(bool(m.get("matched"))),
    "outcome_score": lambda m, passed: m.get("outcome_score"),
    "tool_selection_accuracy": lambda m, passed: m.get("tool_selection_accuracy"),
    "parameter_accuracy": lambda m, passed: m.get("parameter_accuracy"),
    "efficiency": lambda m, passed: m.get("efficiency"),
    "no red flag": lambda m, passed: -float(len(m.get("red_flags") or [])),
}


@dataclass
class Figures:
    runs: int
    successes: int
    auc: dict[str, tuple[float | None, int]] = field(default_factory=dict)
    flagged_successes: float = 0.0
    flagged_failures: float = 0.0
    # failure kind -> (runs, reward 0, caught by the pass rule, caught by a red flag)
    failures: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)
    # red-flag kind -> (runs it fired on, of which had an injected failure)
    flags: dict[str, tuple[int, int]] = field(default_factory=dict)
    # pass-rule reasons on successful runs, most common first
    false_failures: list[tuple[str, int]] = field(default_factory=list)


def _auc(pairs: list[tuple[bool, float]]) -> float | None:
    labels = [int(reward) for reward, _ in pairs]
    if len(set(labels)) < 2:
        return None
    return float(roc_auc_score(labels, [score for _, score in pairs]))


def figures_compute(trials) -> Figures:
    """`trials` hold .run (with .reward and .failure), .metrics and .passed."""
    figures = Figures(runs=len(trials), successes=sum(t.run.reward for t in trials))
    for name, score in SCORES.items():
        pairs = [(t.run.reward, score(t.metrics, t.passed)) for t in trials]
        pairs = [(reward, value) for reward, value in pairs if value is not None]
        figures.auc[name] = (_auc(pairs), len(pairs))
    successes = [t for t in trials if t.run.reward]
    flagged = sum(1 for t in successes if t.metrics.get("red_flags"))
    figures.flagged_successes = flagged / len(successes) if successes else 0.0
    failed = [t for t in trials if not t.run.reward]
    flagged_failed = sum(1 for t in failed if t.metrics.get("red_flags"))
    figures.flagged_failures = flagged_failed / len(failed) if failed else 0.0
    kinds = sorted({t.run.failure for t in trials if t.run.failure})
    for kind in kinds:
        rows = [t for t in trials if t.run.failure == kind]
        figures.failures[kind] = (
            len(rows),
            sum(1 for t in rows if not t.run.reward),
            sum(1 for t in rows if t.passed is False),
            sum(1 for t in rows if t.metrics.get("red_flags")),
        )
    fired: Counter = Counter()
    right: Counter = Counter()
    for trial in trials:
        for kind in {f["kind"] for f in trial.metrics.get("red_flags") or []}:
            fired[kind] += 1
            right[kind] += bool(trial.run.failure)
    figures.flags = {kind: (fired[kind], right[kind]) for kind in sorted(fired)}
    reasons: Counter = Counter()
    for trial in successes:
        if trial.passed is not True:
            for reason in trial.metrics.get("fail_reasons") or ["undecided"]:
                reasons[reason.split(":")[0]] += 1
    figures.false_failures = reasons.most_common()
    return figures


def figures_text(figures: Figures, title: str) -> str:
    """The figures as the plain table the bench prints."""
    lines = [f"== {title}: {figures.runs} runs, {figures.successes} successful by reward"]
    lines.append("ROC AUC against reward:")
    for name, (auc, n) in figures.auc.items():
        shown = "   n/a" if auc is None else f"{auc:6.3f}"
        lines.append(f"  {name:26} {shown}   (n={n})")
    lines.append(
        f"red flags on successful runs: {figures.flagged_successes:.1%}; on failed runs "
        f"{figures.flagged_failures:.1%}"
    )
    lines.append("injected failures: runs, reward 0, failed by pass rule, caught by a red flag")
    for kind, (n, lost, failed, flagged) in figures.failures.items():
        lines.append(
            f"  {kind:22} {n:4d} {lost:4d}   pass rule {failed / n:6.1%}   "
            f"red flag {flagged / n:6.1%}"
        )
    lines.append("red flags: runs fired on, precision against injected failures")
    for kind, (fired, right) in figures.flags.items():
        lines.append(f"  {kind:26} {fired:4d}   precision {right / fired:6.1%}")
    if figures.false_failures:
        lines.append("why the pass rule failed successful runs:")
        lines += [f"  {reason:40} {count:4d}" for reason, count in figures.false_failures]
    return "\n".join(lines)
