"""Reads for eval-run pages and endpoints."""

from __future__ import annotations

from django.db.models.fields.json import KeyTransform
from evalsite_checks.worlds.schema import task_key, world_variant

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


def _task_texts(run: EvalRun, keys: set[str]) -> dict[str, dict]:
    """Each task's request text from the run's dataset version, so tasks read as words, and
    for a fault variant's task (`key@variant`) its name and the kinds of fault it injects."""
    examples = {key.partition("@")[0] for key in keys}
    entries = (
        run.dataset_version.entries.filter(example_key__in=examples)
        .annotate(
            task_text=KeyTransform("task", "content"), world=KeyTransform("tool_world", "content")
        )
        .values_list("example_key", "task_text", "world")
    )
    found = {key: (text, world) for key, text, world in entries}
    texts = {}
    for key in keys:
        example, _, variant = key.partition("@")
        text, world = found.get(example, (None, None))
        faults = (world_variant(world or {}, variant) or {}).get("faults", [])
        texts[key] = {
            "task": text if isinstance(text, str) else "",
            "variant": variant,
            "fault_kinds": sorted({fault["kind"] for fault in faults}),
        }
    return texts


def trial_outcomes(run: EvalRun, keys: set[str] | None = None) -> list[dict]:
    """Every trial of a run with its verdict and the pass rule's reasons, by task and trial.

    Only the reasons are read from the metrics JSON, so the query stays small with many trials.
    """
    trials = (
        EvalTrial.objects.filter(eval_run=run, trace__isnull=False)
        .annotate(
            fail_reasons=KeyTransform("fail_reasons", "metrics"),
            undecided=KeyTransform("undecided", "metrics"),
            world=KeyTransform("tool_world", "metrics"),
        )
        .values("trial_index", "passed", "trace_id", "entry__example_key", "fail_reasons",
                "undecided", "variant", "world")
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
            # What the trial's tool world injected: [{"sequence", "tool", "kind"}].
            "faults_fired": list((row["world"] or {}).get("faults_fired", [])),
        }
        for row in trials
        if keys is None or row["entry__example_key"] in keys
    ]


def _trial_traces(run: EvalRun) -> dict[str, list[dict]]:
    """A run's trials by task: the example's key, or `key@variant` for a fault variant."""
    traces: dict[str, list[dict]] = {}
    for trial in trial_outcomes(run):
        traces.setdefault(task_key(trial["example_key"], trial["variant"]), []).append(trial)
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
                **texts[key],
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
