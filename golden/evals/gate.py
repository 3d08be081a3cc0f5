"""The CI gate: does a candidate run drop below its baseline by more than a threshold or the noise?

Per metric, the rule is either a fixed drop (relative to the baseline, default 10%) or learned
from no-op runs (repeats of an unchanged agent): block when the drop exceeds k standard
deviations of that metric's run-to-run spread. Baseline and candidate are both noisy runs, so
the spread of their difference is sigma * sqrt(2), with sigma the spread of single no-op runs.
The report names the rule, the drop and the band.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from statistics import fmean, stdev

from evalsite_checks.matchers import AUTO as MATCHER_AUTO

from core.errors import ApplicationError
from golden.evals.confirmation import confirmation_decision, people_confirmation
from golden.evals.metrics import GATED_METRICS, HIGHER
from golden.evals.selectors import trial_outcomes
from golden.models import EvalRun
from golden.selectors import dataset_entries_visible
from golden.worlds.reports import fault_kinds_compare
from metrics.coverage import checks_only_outcome, outcome_only_note
from traces.selectors import sees_held_out

FIXED, LEARNED, AUTO = "fixed", "learned", "auto"
PASS, BLOCK, AWAITING_PEOPLE = "pass", "block", "awaiting_people"
# Float noise below this is not a drop.
EPSILON = 1e-9


@dataclass
class GateConfig:
    """Thresholds; `mode` auto learns a metric's band when enough no-op runs exist."""

    fixed_drop: float = 0.10
    metric_drops: dict[str, float] = field(default_factory=dict)
    mode: str = AUTO
    sigma_k: float = 2.5
    min_noop_runs: int = 3
    noop_run_ids: list[int] | None = None
    # Block only once people, comparing the regressed tasks pairwise, preferred the baseline
    # on at least this share of them (golden/evals/confirmation.py).
    require_people_confirmation: bool = False
    confirmation_share: float = 0.5

    def validate(self) -> None:
        if self.mode not in (AUTO, FIXED, LEARNED):
            raise ApplicationError("mode must be auto, fixed or learned.", field="mode")
        if not 2.0 <= self.sigma_k <= 3.0:
            raise ApplicationError("k must be between 2 and 3 standard deviations.", field="k")
        if not 0.0 <= self.fixed_drop < 1.0:
            raise ApplicationError("fixed_drop must be a fraction in [0, 1).", field="fixed_drop")
        for name, value in self.metric_drops.items():
            if name not in GATED_METRICS:
                raise ApplicationError(
                    f"Unknown metric {name!r}; gated metrics: {', '.join(GATED_METRICS)}.",
                    field="thresholds",
                )
            if not 0.0 <= value < 1.0:
                raise ApplicationError(
                    f"{name}: a drop is a fraction in [0, 1).", field="thresholds"
                )
        if not 0.0 < self.confirmation_share <= 1.0:
            raise ApplicationError(
                "confirmation_share is a fraction in (0, 1].", field="confirmation_share"
            )
        if self.min_noop_runs < 2:
            raise ApplicationError("A spread needs at least 2 no-op runs.", field="min_noop_runs")


def _overall(run: EvalRun, role: str) -> dict:
    overall = (run.metrics or {}).get("overall")
    if not overall:
        raise ApplicationError(
            f"Run {run.pk} ({run.name}) has not been scored; run eval_run_score first.",
            field=role,
        )
    return overall


def _run_summary(run: EvalRun) -> dict:
    return {
        "id": run.pk,
        "name": run.name,
        "agent_version": run.agent_version,
        "dataset_version": run.dataset_version.name,
        "trials_per_task": run.trials_per_task,
    }


def noop_runs_for(baseline: EvalRun, config: GateConfig) -> list[EvalRun]:
    """Explicit no-op runs, else scored no-op runs of the same agent on the same dataset."""
    if config.noop_run_ids:
        runs = list(EvalRun.objects.filter(pk__in=config.noop_run_ids))
        missing = set(config.noop_run_ids) - {r.pk for r in runs}
        if missing:
            raise ApplicationError(f"No eval run with id {sorted(missing)}.", field="noop_runs")
    else:
        runs = list(
            EvalRun.objects.filter(
                is_noop=True,
                dataset_version_id=baseline.dataset_version_id,
                agent_name=baseline.agent_name,
            ).order_by("pk")
        )
    return [r for r in runs if (r.metrics or {}).get("overall")]


def noise_spread(runs: list[EvalRun]) -> dict[str, dict]:
    """Per metric: the sample standard deviation of its overall value across no-op runs."""
    spread = {}
    for name in GATED_METRICS:
        values = [r.metrics["overall"].get(name) for r in runs]
        values = [float(v) for v in values if v is not None]
        if len(values) >= 2:
            spread[name] = {"sigma": stdev(values), "mean": fmean(values), "runs": len(values)}
    return spread


def metric_verdict(
    name: str, base: float | None, cand: float | None, config: GateConfig, spread: dict | None
) -> dict:
    """One metric's line of the report: the rule applied and whether it blocks."""
    direction = GATED_METRICS[name]
    row = {"metric": name, "direction": direction, "baseline": base, "candidate": cand}
    if base is None or cand is None:
        return {**row, "rule": None, "blocked": False, "reason": "not measured in both runs"}
    drop = (base - cand) if direction == HIGHER else (cand - base)
    relative = drop / abs(base) if base else None
    row.update(drop=drop, relative_drop=relative)
    worse = "dropped" if direction == HIGHER else "rose"
    # Adding 0.0 turns -0.0 into 0.0 so an unchanged metric reads "+0.0000".
    change = -drop + 0.0
    learned = spread is not None and (
        config.mode == LEARNED or (config.mode == AUTO and spread["runs"] >= config.min_noop_runs)
    )
    if learned:
        sigma_diff = spread["sigma"] * math.sqrt(2)
        band = config.sigma_k * sigma_diff
        blocked = drop > band + EPSILON
        row.update(
            rule=LEARNED,
            threshold=band,
            noise_band={
                "sigma": spread["sigma"],
                "sigma_diff": sigma_diff,
                "k": config.sigma_k,
                "band": band,
                "noop_runs": spread["runs"],
                "noop_mean": spread["mean"],
            },
            blocked=blocked,
            reason=(
                f"{name} {worse} {drop:.4f}, beyond the noise band of {config.sigma_k}σ = "
                f"{band:.4f} (σ of a run-to-run difference {sigma_diff:.4f}, from {spread['runs']} "
                "no-op runs)"
                if blocked
                else f"{name} change {change:+.4f} is within {config.sigma_k}σ = {band:.4f}"
            ),
        )
        return row
    limit = config.metric_drops.get(name, config.fixed_drop)
    # Relative to the baseline; from a zero baseline the absolute change is what is left.
    measured = relative if relative is not None else drop
    blocked = measured > limit + EPSILON
    row.update(
        rule=FIXED,
        threshold=limit,
        noise_band=None,
        blocked=blocked,
        reason=(
            f"{name} {worse} {drop:.4f} ({measured:.1%}), more than the fixed {limit:.0%}"
            if blocked
            else f"{name} change {change:+.4f} is within the fixed {limit:.0%}"
        ),
    )
    if config.mode == LEARNED:
        row["reason"] += " (not enough no-op runs to learn a band; fixed rule used)"
    return row


def candidate_trials(candidate: EvalRun, user=None) -> dict:
    """The candidate's trials that did not pass, each with the pass rule's reasons.

    Without a user (the CLI) every trial is listed; a user who may not see held-out examples
    gets only the trials of examples they can see.
    """
    keys = None
    if user is not None and not sees_held_out(user):
        visible = dataset_entries_visible(user, candidate.dataset_version)
        keys = set(visible.values_list("example_key", flat=True))
    outcomes = trial_outcomes(candidate, keys)
    return {
        "passed": sum(1 for t in outcomes if t["passed"] is True),
        "failed": [t for t in outcomes if t["passed"] is False],
        "undecided": [t for t in outcomes if t["passed"] is None],
    }


def outcome_only_warnings(candidate: EvalRun, user=None) -> list[str]:
    """Examples of the candidate's dataset whose reference its matcher checks no step of: the
    gate then rests on their outcome alone. Keys a user may not see are counted, not named."""
    matcher = (candidate.metrics or {}).get("matcher") or MATCHER_AUTO
    entries = (
        dataset_entries_visible(user, candidate.dataset_version)
        if user is not None
        else candidate.dataset_version.entries.all()
    )
    keys = sorted(
        entry.example_key
        for entry in entries.only("example_key", "content")
        if checks_only_outcome(entry.content, matcher)
    )
    if not keys:
        return []
    shown = ", ".join(keys[:20]) + (" ..." if len(keys) > 20 else "")
    return [f"{len(keys)} example(s) ({shown}): {outcome_only_note(matcher)}"]


def gate_evaluate(
    baseline: EvalRun, candidate: EvalRun, config: GateConfig | None = None, user=None
) -> dict:
    """Compare two scored runs and decide pass or block; returns the full JSON report."""
    config = config or GateConfig()
    config.validate()
    base_metrics = _overall(baseline, "baseline")
    cand_metrics = _overall(candidate, "candidate")
    noop = noop_runs_for(baseline, config)
    spread = noise_spread(noop)
    rows = [
        metric_verdict(
            name, base_metrics.get(name), cand_metrics.get(name), config, spread.get(name)
        )
        for name in GATED_METRICS
    ]
    blocked_by = [row["metric"] for row in rows if row["blocked"]]
    warnings = []
    if baseline.dataset_version_id != candidate.dataset_version_id:
        warnings.append("The runs used different dataset versions; drops may be task changes.")
    if cand_metrics.get("missing_trials"):
        warnings.append(f"The candidate is missing {cand_metrics['missing_trials']} trial(s).")
    warnings += outcome_only_warnings(candidate, user)
    decision = "block" if blocked_by else "pass"
    summary = (
        "Blocked: " + "; ".join(row["reason"] for row in rows if row["blocked"])
        if blocked_by
        else "Passed: no metric dropped beyond its threshold."
    )
    people = people_confirmation(baseline, candidate)
    if blocked_by and config.require_people_confirmation:
        decision, summary = _people_decide(people, config, summary)
    return {
        "decision": decision,
        "summary": summary,
        "blocked_by": blocked_by,
        "baseline": _run_summary(baseline),
        "candidate": _run_summary(candidate),
        "config": asdict(config),
        "noise": {"noop_runs": [r.pk for r in noop], "metrics": spread},
        "metrics": rows,
        "candidate_trials": candidate_trials(candidate, user),
        "fault_kinds": fault_kinds_compare(base_metrics, cand_metrics),
        "warnings": warnings,
        "people": people,
    }


def _people_decide(people: dict, config: GateConfig, summary: str) -> tuple[str, str]:
    """The decision when a metric drop must be confirmed by people before it blocks."""
    verdict = confirmation_decision(people, config.confirmation_share)
    share = f"{config.confirmation_share:.0%}"
    if verdict == "confirmed":
        return BLOCK, f"{summary}. {people['text']} Confirmed (needs {share})."
    if verdict == "refuted":
        return PASS, (
            f"Passed: the metrics dropped, but people did not confirm it. {people['text']} "
            f"Blocking needs {share}."
        )
    return AWAITING_PEOPLE, (
        f"Awaiting people: the metrics dropped ({summary.removeprefix('Blocked: ')}); "
        f"{people['text']} Blocking needs {share}."
    )
