"""Reads for eval-run pages and endpoints."""

from __future__ import annotations

from django.db.models.fields.json import KeyTransform

from golden.evals.metrics import LOWER_IS_BETTER, METRICS, TASK_METRICS
from golden.models import EvalRun, EvalTrial
from golden.selectors import dataset_entries_visible
from traces.selectors import sees_held_out

# Newest first; the index evalrun_newest serves it, the id breaks ties.
EVAL_RUN_ORDER = ("-created_at", "-id")


def eval_run_list():
    return EvalRun.objects.select_related("dataset_version").order_by(*EVAL_RUN_ORDER)


def metrics_visible(user, run: EvalRun) -> dict:
    """A run's metrics without the per-task rows of held-out examples the user may not see.
    `user=None` asks, as traces_visible does, for what anyone may see: the open tasks."""
    metrics = dict(run.metrics or {})
    if sees_held_out(user) or "per_task" not in metrics:
        return metrics
    entries = (
        run.dataset_version.entries.filter(held_out=False)
        if user is None
        else dataset_entries_visible(user, run.dataset_version)
    )
    keys = set(entries.values_list("example_key", flat=True))
    # A fault variant's task is named `key@variant` (evalsite_checks.worlds.schema.task_key).
    metrics["per_task"] = {
        k: v for k, v in metrics["per_task"].items() if k in keys or k.rpartition("@")[0] in keys
    }
    return metrics


def _delta(name: str, base, cand) -> float | None:
    """Positive when the candidate is better, whatever the metric's direction."""
    if base is None or cand is None:
        return None
    return (base - cand) if name in LOWER_IS_BETTER else (cand - base)


def _change(base, cand) -> float | None:
    return None if base is None or cand is None else cand - base


def _task_texts(run: EvalRun, keys: set[str]) -> dict[str, str]:
    """Each task's request text from the run's dataset version, so tasks read as words."""
    rows = KeyTransform("task", "content")
    entries = (
        run.dataset_version.entries.filter(example_key__in=keys)
        .annotate(task_text=rows)
        .values_list("example_key", "task_text")
    )
    return {key: text for key, text in entries if isinstance(text, str)}


def trial_outcomes(run: EvalRun, keys: set[str] | None = None) -> list[dict]:
    """Every trial of a run with its verdict and the pass rule's reasons, by task and trial.

    Only the reasons are read from the metrics JSON, so the query stays small with many trials.
    """
    trials = (
        EvalTrial.objects.filter(eval_run=run, trace__isnull=False)
        .annotate(
            fail_reasons=KeyTransform("fail_reasons", "metrics"),
            undecided=KeyTransform("undecided", "metrics"),
        )
        .values("trial_index", "passed", "trace_id", "entry__example_key", "fail_reasons",
                "undecided", "variant")
        .order_by("entry__example_key", "variant", "trial_index")
    )  # fmt: skip
    return [
        {
            "example_key": row["entry__example_key"],
            "variant": row["variant"],
            "trial": row["trial_index"],
            "trace_id": row["trace_id"],
            "passed": row["passed"],
            "reasons": list(row["fail_reasons"] or []),
            "undecided": list(row["undecided"] or []),
        }
        for row in trials
        if keys is None or row["entry__example_key"] in keys
    ]


def _trial_traces(run: EvalRun) -> dict[str, list[dict]]:
    traces: dict[str, list[dict]] = {}
    for trial in trial_outcomes(run):
        traces.setdefault(trial["example_key"], []).append(trial)
    return traces


def eval_run_comparison(baseline: EvalRun, candidate: EvalRun, user) -> dict:
    """Two runs side by side: overall metrics, and tasks with the ones that got worse first."""
    base, cand = metrics_visible(user, baseline), metrics_visible(user, candidate)
    base_overall, cand_overall = base.get("overall", {}), cand.get("overall", {})
    metrics = [
        {
            "name": name,
            "baseline": base_overall.get(name),
            "candidate": cand_overall.get(name),
            "delta": _delta(name, base_overall.get(name), cand_overall.get(name)),
            "change": _change(base_overall.get(name), cand_overall.get(name)),
        }
        for name in METRICS
    ]
    base_tasks, cand_tasks = base.get("per_task", {}), cand.get("per_task", {})
    base_traces, cand_traces = _trial_traces(baseline), _trial_traces(candidate)
    tasks = []
    texts = _task_texts(candidate, set(base_tasks) | set(cand_tasks))
    # Only tasks the user may see: their trial traces would reveal a held-out task.
    for key in sorted(set(base_tasks) | set(cand_tasks)):
        cells = []
        worst = 0.0
        for name in TASK_METRICS:
            b, c = base_tasks.get(key, {}).get(name), cand_tasks.get(key, {}).get(name)
            delta = _delta(name, b, c)
            worst = min(worst, delta if delta is not None else 0.0)
            change = _change(b, c)
            cells.append(
                {"name": name, "baseline": b, "candidate": c, "delta": delta, "change": change}
            )
        tasks.append(
            {
                "key": key,
                "task": texts.get(key, ""),
                "cells": cells,
                "worst_delta": worst,
                "got_worse": worst < 0,
                "baseline_traces": base_traces.get(key, []),
                "candidate_traces": cand_traces.get(key, []),
            }
        )
    tasks.sort(key=lambda t: (t["worst_delta"], t["key"]))
    return {
        "metrics": metrics,
        "tasks": tasks,
        "worse_count": sum(1 for t in tasks if t["got_worse"]),
        "components": cand.get("components", []),
    }
