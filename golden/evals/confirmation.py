"""People confirm a regression: pairwise review of the tasks that got worse between two runs.

The compare page sends each regressed (or improved) task to the pairwise queue as the first
trial of each run side by side. What people settle is summed here for the compare page and
the gate report ("people preferred the baseline on N of M regressed tasks"), and, when the
gate asks for it, decides whether a metric drop blocks.
"""

from __future__ import annotations

from core.errors import ApplicationError
from golden.evals.selectors import eval_run_comparison
from golden.models import EvalRun
from reviews.models import PairwiseSource
from reviews.pairwise import (
    BASELINE,
    CANDIDATE,
    EQUAL,
    pairwise_item_create,
    pairwise_run_preferences,
)
from traces.models import Trace

REGRESSED, IMPROVED = "regressed", "improved"


def _tasks_moved(baseline: EvalRun, candidate: EvalRun) -> dict[str, list[dict]]:
    """Tasks that got worse and better, as the compare page lists them. Held-out tasks are
    left out (user None): their trials can never be shown to annotators."""
    tasks = eval_run_comparison(baseline, candidate, None)["tasks"]
    improved = [
        t for t in tasks if not t["got_worse"] and any((c["delta"] or 0) > 0 for c in t["cells"])
    ]
    return {REGRESSED: [t for t in tasks if t["got_worse"]], IMPROVED: improved}


def eval_run_pairs_enqueue(
    baseline: EvalRun, candidate: EvalRun, *, direction: str = REGRESSED, queue=None
) -> dict:
    """Queue the first trial of each run, per regressed (or improved) task, for pairwise
    review; a pair already queued is kept. Returns how many were queued and skipped."""
    if direction not in (REGRESSED, IMPROVED):
        raise ApplicationError("direction is regressed or improved.", field="direction")
    tasks = _tasks_moved(baseline, candidate)[direction]
    trace_ids = {
        trial["trace_id"]
        for task in tasks
        for trial in task["baseline_traces"][:1] + task["candidate_traces"][:1]
    }
    traces = Trace.objects.in_bulk(trace_ids)
    created = existing = without_trials = 0
    for task in tasks:
        if not task["baseline_traces"] or not task["candidate_traces"]:
            without_trials += 1
            continue
        _, made = pairwise_item_create(
            baseline_trace=traces[task["baseline_traces"][0]["trace_id"]],
            candidate_trace=traces[task["candidate_traces"][0]["trace_id"]],
            source=PairwiseSource.EVAL_RUNS,
            queue=queue,
            baseline_run_id=baseline.pk,
            candidate_run_id=candidate.pk,
            task_key=task["key"],
            direction=direction,
            # Regressions first: they hold a merge back.
            priority=1 if direction == REGRESSED else 0,
        )
        created += made
        existing += not made
    return {"created": created, "existing": existing, "without_trials": without_trials}


def people_confirmation(baseline: EvalRun, candidate: EvalRun) -> dict:
    """What people said of the regressed tasks: N of M preferred the baseline, and the rest."""
    moved = _tasks_moved(baseline, candidate)
    regressed = [t["key"] for t in moved[REGRESSED]]
    said = pairwise_run_preferences(baseline.pk, candidate.pk)
    counts = {BASELINE: 0, CANDIDATE: 0, EQUAL: 0}
    queued = pending = 0
    for key in regressed:
        if key not in said:
            continue
        queued += 1
        if said[key] is None:
            pending += 1
        else:
            counts[said[key]] += 1
    total = len(regressed)
    unsent = total - queued
    parts = [f"{pending} still open"] * bool(pending) + [f"{unsent} not sent to review"] * bool(
        unsent
    )
    rest = f" ({', '.join(parts)})" if parts else ""
    return {
        "regressed": total,
        "improved": len(moved[IMPROVED]),
        "queued": queued,
        "pending": pending,
        "settled": queued - pending,
        "preferred_baseline": counts[BASELINE],
        "preferred_candidate": counts[CANDIDATE],
        "equal": counts[EQUAL],
        "text": (
            f"People preferred the baseline on {counts[BASELINE]} of {total} regressed "
            f"task{'s' if total != 1 else ''}" + rest + "."
        ),
    }


def confirmation_decision(confirmation: dict, share: float) -> str:
    """With the metrics blocking: "confirmed" when people preferred the baseline on at least
    `share` of the regressed tasks, "refuted" when they no longer can, else "awaiting"."""
    total = confirmation["regressed"]
    if total == 0:
        return "confirmed"  # nothing people could review: the metrics alone decide
    needed = share * total
    if confirmation["preferred_baseline"] >= needed:
        return "confirmed"
    undecided = total - confirmation["settled"]
    if confirmation["preferred_baseline"] + undecided < needed:
        return "refuted"
    return "awaiting"
