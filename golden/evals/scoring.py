"""Score the trials of an eval run and roll them up per task and overall."""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace
from statistics import fmean

from django.db import transaction
from evalsite_checks.effects import tool_definitions
from evalsite_checks.matchers import AUTO, SEMANTIC, PathJudge
from evalsite_checks.parameters import ParameterJudge
from evalsite_checks.pass_rule import PassCriteria, trial_decide
from evalsite_checks.rules import golden_rules_check
from evalsite_checks.scoring import trajectory_score
from evalsite_checks.worlds.flags import world_red_flags
from evalsite_checks.worlds.schema import entry_variants, task_key, variant_content, world_variant

from golden.evals.metrics import MEAN_METRICS
from golden.evals.outcome import outcome_score
from golden.evals.passk import pass_at_k, pass_hat_k
from golden.evals.tags import eval_trials_attach
from golden.masking import entry_masker
from golden.models import DatasetVersionEntry, EvalRun, EvalTrial
from golden.worlds.scoring import trial_calls, world_summary
from judges.check_passes import CheckPasses
from metrics.attribution import (
    component_accuracy_table,
    component_roles,
    span_agent_component,
    span_component,
)
from metrics.effects import tool_catalogue_ensure
from metrics.policy_cache import trace_failure_rule_remembered
from metrics.premature_stop import reference_premature_stop
from metrics.redflag_store import red_flags_ensure
from metrics.steps import tool_steps_from_spans
from reviews.models import ReviewReason
from reviews.services import review_item_enqueue
from traces.models import Trace

logger = logging.getLogger(__name__)


# (trace, expected behaviour) -> (1.0 shown / 0.0 not / None unreadable, reason)
BehaviorJudge = Callable[[Trace, str], tuple[float | None, str]]


@dataclass
class ScoringOptions:
    matcher: str = AUTO
    path_judge: PathJudge | None = None
    parameter_judge: ParameterJudge | None = None
    behavior_judge: BehaviorJudge | None = None
    criteria: PassCriteria = PassCriteria()


def parameter_judge_safe(judge: ParameterJudge) -> ParameterJudge:
    """A judge that scores 0.5 ("cannot tell") when the call fails, so one outage is not a 0."""

    def ask(name, expected, actual, task):
        try:
            return judge(name, expected, actual, task)
        except Exception:  # noqa: BLE001 - any provider failure means "undecided"
            logger.warning("parameter judge failed for %s; scored 0.5", name, exc_info=True)
            return 0.5

    return ask


def trial_effects(trace: Trace, context: dict, steps) -> dict[str, str]:
    """The project's tool catalogue, extended by the tools this trial was given or called."""
    definitions = {**tool_definitions(trace.context), **tool_definitions(context)}
    return tool_catalogue_ensure(trace.project, definitions, (s.tool for s in steps))


def behavior_check(trace: Trace, content: dict, judge: BehaviorJudge | None) -> tuple:
    """(score, reason, unreadable) for an adversarial example's expected behaviour.

    The score is None when undecided; `unreadable` when the judge answered and its reply could
    not be read, which a person then settles.
    """
    expected = content.get("expected_behavior")
    if not expected:
        return None, "", False
    if judge is None:
        return None, "no behaviour judge in this scoring (deterministic only)", False
    try:
        score, reason = judge(trace, expected)
    except Exception:  # noqa: BLE001 - a provider failure leaves the behaviour undecided
        logger.warning("behaviour judge failed for trace %s", trace.pk, exc_info=True)
        return None, "the behaviour judge call failed", False
    return score, reason, score is None


def _path_judge(options: ScoringOptions) -> PathJudge | None:
    """The path judge the semantic matcher asks: the given one, else the default LLM one."""
    if options.path_judge is None and options.matcher == SEMANTIC:
        from judges.trajectory_llm import path_judge_llm

        return path_judge_llm
    return options.path_judge


def trial_content(trial: EvalTrial) -> dict:
    """What a trial is judged against (evalsite_checks.worlds.schema.variant_content)."""
    return variant_content(trial.entry.content, trial.variant)


def trial_metrics(trial: EvalTrial, options: ScoringOptions) -> dict:
    """Every metric of one trial; red flags are the trace's stored flags plus golden rules,
    plus, when the trial ran in a tool world, the rules that know what was injected."""
    trace, content = trial.trace, trial_content(trial)
    spans = list(trace.spans.all())
    spans.sort(key=lambda s: (s.position, s.pk))
    by_id = {s.span_id: s for s in spans}
    for span in spans:
        # Traces scored before they settled have not been attributed yet.
        span.component = span.component or span_component(span, by_id)
    # References hold masked values (golden.masking): the agent's calls are compared masked alike.
    masker = entry_masker(trial.entry)
    steps = [
        replace(step, inputs=masker.value(step.inputs), output=masker.value(step.output))
        for step in tool_steps_from_spans(spans, trace_failure_rule_remembered(trace))
    ]
    context = content.get("context") or trace.context
    effects = trial_effects(trace, context or {}, steps)
    reference = content.get("reference_trajectory") or []
    passes = CheckPasses()
    trajectory = trajectory_score(
        reference,
        steps,
        task=content.get("task") or trace.task,
        context=context,
        matcher=options.matcher,
        path_judge=passes.path(_path_judge(options)),
        parameter_judge=passes.parameter(options.parameter_judge),
        effects=effects,
    )
    components = {s.span_id: s.component for s in spans}
    agents = {s.span_id: span_agent_component(s, by_id) for s in spans}
    # The same problem on the same span, found by a generic check and a golden rule, is one flag.
    merged: dict[tuple[str, str], dict] = {}
    found = [
        (f.kind, f.span.span_id if f.span else "", f.detail, "trace")
        for f in red_flags_ensure(trace, spans)
    ]
    golden_hits = golden_rules_check(content.get("red_flags") or [], steps)
    golden_hits += reference_premature_stop(reference, steps, trace.final_answer, effects)
    world = None
    if trial.tool_token_hash or trial.eval_run.tool_worlds_started_at:
        calls = trial_calls(trial)
        golden_hits += world_red_flags(
            calls,
            steps,
            task=content.get("task") or trace.task,
            context=context or {},
            final_answer=trace.final_answer,
            effects=effects,
        )
        variant = world_variant(content.get("tool_world") or {}, trial.variant)
        world = {"variant": trial.variant, **world_summary(calls, variant)}
    found += [(h.kind, h.span_id, h.detail, "golden") for h in golden_hits]
    for kind, span_id, detail, source in found:
        flag = merged.setdefault(
            (kind, span_id), {"kind": kind, "span_id": span_id, "detail": detail, "sources": []}
        )
        if source not in flag["sources"]:
            flag["sources"].append(source)
    flags = list(merged.values())
    for flag in flags:
        flag["component"] = components.get(flag["span_id"], "")
    outcome = outcome_score(trace, content, spans, masker)
    behavior, behavior_reason, behavior_unreadable = behavior_check(
        trace, content, passes.behavior(options.behavior_judge)
    )
    metrics = {
        "outcome_score": outcome.score,
        "outcome_source": outcome.source,
        "behavior_score": behavior,
        "behavior_reason": behavior_reason,
        **trajectory.as_dict(),
        "judge_unreadable": trajectory.judge_unreadable or behavior_unreadable,
        "red_flags": flags,
        "red_flag_rate": float(len(flags)),
        "llm_check_passes": passes.asked,
        "judge_flipped": passes.flipped,
        "input_tokens": trace.input_tokens,
        "output_tokens": trace.output_tokens,
        "cost_usd": float(trace.cost_usd or 0),
        "tool_world": world,
    }
    for step in metrics["steps"]:
        step["agent"] = agents.get(step["span_id"], "")
    decision = trial_decide(metrics, content, options.criteria)
    metrics.update(
        passed=decision.passed, fail_reasons=decision.reasons, undecided=decision.undecided
    )
    return metrics


def _mean(values) -> float | None:
    present = [v for v in values if v is not None]
    return fmean(present) if present else None


def _task_rollup(trials: list[EvalTrial], expected_trials: int) -> dict:
    """Per-task means, plus pass@k and pass^k with missing trials counted as failures."""
    n = max(expected_trials, len(trials))
    passed = sum(1 for t in trials if t.passed)
    k = max(1, expected_trials)
    row = {name: _mean(t.metrics.get(name) for t in trials) for name in MEAN_METRICS}
    row.update(
        trials=len(trials),
        missing=n - len(trials),
        passed=passed,
        pass_at_k=pass_at_k(n, passed, k),
        pass_hat_k=pass_hat_k(n, passed, k),
        traces=[t.trace_id for t in sorted(trials, key=lambda t: t.trial_index)],
    )
    return row


def fault_kind_rollup(trials: list[EvalTrial]) -> dict:
    """Per injected fault kind: trials that met it, how many passed, failed or are undecided,
    and the pass rate among the decided (None while none is)."""
    rows: dict[str, dict] = {}
    for trial in trials:
        for kind in (trial.metrics.get("tool_world") or {}).get("fault_kinds", []):
            row = rows.setdefault(kind, {"trials": 0, "passed": 0, "failed": 0, "undecided": 0})
            row["trials"] += 1
            verdict = {True: "passed", False: "failed", None: "undecided"}[trial.passed]
            row[verdict] += 1
    for row in rows.values():
        decided = row["passed"] + row["failed"]
        row["pass_rate"] = row["passed"] / decided if decided else None
    return dict(sorted(rows.items()))


def run_rollup(run: EvalRun, trials: list[EvalTrial]) -> dict:
    """The run's metrics: overall, per task (by example key), and per component."""
    by_key: dict[str, list[EvalTrial]] = defaultdict(list)
    for trial in trials:
        by_key[task_key(trial.entry.example_key, trial.variant)].append(trial)
    all_keys = []
    # In a tool-world run each fault variant is a task of its own.
    for key, content in (
        DatasetVersionEntry.objects.filter(version=run.dataset_version)
        .order_by("example_key")
        .values_list("example_key", "content")
    ):
        variants = entry_variants(content) if run.tool_worlds_started_at else [""]
        all_keys += [task_key(key, variant) for variant in variants]
    per_task = {key: _task_rollup(by_key.get(key, []), run.trials_per_task) for key in all_keys}
    overall = {name: _mean(t.metrics.get(name) for t in trials) for name in MEAN_METRICS}
    overall.update(
        # Undecided trials wait for a person: they are counted apart, not as failures.
        pass_rate=_mean(float(t.passed) for t in trials if t.passed is not None),
        undecided_trials=sum(1 for t in trials if t.passed is None),
        pass_at_k=_mean(row["pass_at_k"] for row in per_task.values()),
        pass_hat_k=_mean(row["pass_hat_k"] for row in per_task.values()),
        trials=len(trials),
        missing_trials=sum(row["missing"] for row in per_task.values()),
        tasks=len(per_task),
        input_tokens=sum(t.metrics.get("input_tokens", 0) for t in trials),
        output_tokens=sum(t.metrics.get("output_tokens", 0) for t in trials),
        cost_usd=round(sum(t.metrics.get("cost_usd", 0.0) for t in trials), 6),
        red_flags=dict(
            Counter(flag["kind"] for t in trials for flag in t.metrics.get("red_flags", []))
        ),
    )
    # Each call scores for its tool and for the agent that chose it; a call of a tool the
    # reference does not have is a wrong step for both.
    step_scores = []
    for trial in trials:
        for step in trial.metrics.get("steps", []):
            score = step["parameter_accuracy"] if step["reference_step"] is not None else 0.0
            if score is None or step.get("counted") is False:
                continue
            step_scores.append((step["component"] or f"tool:{step['tool']}", score))
            if step.get("agent"):
                step_scores.append((step["agent"], score))
    flags = [
        (flag["component"] or "unattributed", flag["kind"])
        for t in trials
        for flag in t.metrics.get("red_flags", [])
    ]
    overall["fault_kinds"] = fault_kind_rollup(trials)
    roles = {}
    for trial in trials:
        roles.update(component_roles(trial.trace.spans.all()))
    return {
        "k": run.trials_per_task,
        "overall": overall,
        "per_task": per_task,
        "components": component_accuracy_table(step_scores, flags, roles),
    }


def eval_run_score(run: EvalRun, options: ScoringOptions | None = None) -> dict:
    """Attach tagged traces, score every trial, store trial and run metrics; returns the run's."""
    options = options or ScoringOptions()
    attach_counts = eval_trials_attach(run)
    trials = list(
        run.trials.filter(trace__isnull=False)
        .select_related("entry", "trace", "eval_run")
        .prefetch_related("trace__spans")
    )
    for trial in trials:
        trial.metrics = trial_metrics(trial, options)
        trial.passed = trial.metrics["passed"]
    with transaction.atomic():
        EvalTrial.objects.bulk_update(trials, ["metrics", "passed"])
        for trial in trials:
            if trial.metrics["judge_unreadable"]:
                review_item_enqueue(
                    trace=trial.trace,
                    reason=ReviewReason.UNPARSEABLE,
                    detail="A judge reply (path, parameter or expected behaviour) could not be "
                    f"read while scoring eval run {run.name!r}; the trial is undecided until a "
                    "person looks.",
                )
            if trial.metrics.get("judge_flipped"):
                review_item_enqueue(
                    trace=trial.trace,
                    reason=ReviewReason.PASSES_DISAGREE,
                    detail=f"The {', '.join(trial.metrics['judge_flipped'])} check answered "
                    f"differently on its two passes while scoring eval run {run.name!r}; the "
                    "trial is undecided until a person looks.",
                )
        run.metrics = {**run_rollup(run, trials), "matcher": options.matcher, **attach_counts}
        run.save(update_fields=["metrics"])
    return run.metrics
