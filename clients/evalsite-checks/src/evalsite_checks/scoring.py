"""Score one trajectory against a reference: tool selection, parameters, efficiency, per step."""

from __future__ import annotations

from dataclasses import dataclass, field

from evalsite_checks.effects import WRITE, tool_effect_default
from evalsite_checks.matchers import (
    AUTO,
    IN_ORDER,
    STATE,
    PathJudge,
    efficiency,
    match_in_order,
    match_state,
    trajectory_match,
)
from evalsite_checks.parameters import (
    FROM_STEP,
    UNDECIDED,
    UNREADABLE,
    ParameterJudge,
    mean_score,
    step_parameter_scores,
)
from evalsite_checks.steps import ToolStep, last_attempts, leaf_values


@dataclass
class StepScore:
    """One of the agent's tool calls: was it a reference tool, and how right were its inputs."""

    span_id: str
    component: str
    tool: str
    reference_step: int | None
    parameter_accuracy: float | None
    parameters: list[dict] = field(default_factory=list)
    # False for calls that do not bear on correctness (reads under the state matcher).
    counted: bool = True

    @property
    def tool_correct(self) -> bool:
        return self.reference_step is not None


@dataclass
class TrajectoryScore:
    matcher: str
    matched: bool
    tool_selection_accuracy: float
    parameter_accuracy: float | None
    efficiency: float | None
    precision: float
    recall: float
    calls: int
    reference_calls: int
    reason: str = ""
    steps: list[StepScore] = field(default_factory=list)
    retried_calls: int = 0
    failed_writes: list[dict] = field(default_factory=list)
    judge_unreadable: bool = False

    def as_dict(self) -> dict:
        return {
            "matcher": self.matcher,
            "matched": self.matched,
            "tool_selection_accuracy": self.tool_selection_accuracy,
            "parameter_accuracy": self.parameter_accuracy,
            "efficiency": self.efficiency,
            "precision": self.precision,
            "recall": self.recall,
            "calls": self.calls,
            "reference_calls": self.reference_calls,
            "reason": self.reason,
            "retried_calls": self.retried_calls,
            "failed_writes": self.failed_writes,
            "judge_unreadable": self.judge_unreadable,
            "steps": [
                {
                    "span_id": s.span_id,
                    "component": s.component,
                    "tool": s.tool,
                    "reference_step": s.reference_step,
                    "parameter_accuracy": s.parameter_accuracy,
                    "parameters": s.parameters,
                    "counted": s.counted,
                }
                for s in self.steps
            ],
        }


def _step_number(reference: list[dict], index: int) -> int:
    return int(reference[index].get("step") or index + 1)


def _effect(effects: dict[str, str] | None, tool: str) -> str:
    # A tool missing from the catalogue gets the default its name implies.
    effects = effects or {}
    return effects[tool] if tool in effects else tool_effect_default(tool)


def reference_dependencies(reference: list[dict]) -> dict[int, list[int]]:
    """Reference index -> indexes it must come after: `after: N` or a `<from_step_N_output>`."""
    index_of = {_step_number(reference, i): i for i in range(len(reference))}
    depends: dict[int, list[int]] = {}
    for index, step in enumerate(reference):
        after = step.get("after")
        numbers = list(after) if isinstance(after, (list, tuple)) else [after]
        for _key, value in leaf_values(step.get("inputs") or {}):
            match = FROM_STEP.match(value) if isinstance(value, str) else None
            if match:
                numbers.append(int(match.group(1)))
        found = [index_of[n] for n in numbers if isinstance(n, int) and n in index_of]
        if found:
            depends[index] = found
    return depends


def arguments_match(params: list) -> bool:
    """Whether a write's arguments are the reference's, as far as anyone could tell: a value
    only a judge could compare, and no judge read, does not count as a mismatch (the trial is
    then undecided, or scored 0.5 on that parameter, never failed on a guess)."""
    return all(p.score >= 1.0 or p.method in (UNREADABLE, UNDECIDED) for p in params)


def matcher_for(matcher: str, reference: list[dict]) -> str:
    """`auto` is the state matcher whenever there is a reference: what a run changed decides,
    and a reference that only reads says nothing may change. Without a reference, in_order
    (which then has nothing to miss). Unlike a chosen `state`, `auto` also checks the reads the
    outcome depends on (`reference_counted_reads`)."""
    if matcher != AUTO:
        return matcher
    return STATE if reference else IN_ORDER


def optional_steps(reference: list[dict]) -> set[int]:
    """Reference indexes a run may leave out (`"optional": true`)."""
    return {i for i, step in enumerate(reference) if step.get("optional") is True}


def reference_counted_reads(reference: list[dict], effects: dict[str, str] | None) -> list[int]:
    """The reference reads the default matcher checks, arguments included.

    When the reference writes nothing, its reads are what the answer is drawn from: all count.
    Otherwise only the reads a write takes its output from or must come after (and what those
    depend on in turn) count; other lookups are one way among many to the same writes. An
    optional step never counts."""
    writes = [i for i, s in enumerate(reference) if _effect(effects, s.get("tool", "")) == WRITE]
    optional = optional_steps(reference)
    reads = [i for i in range(len(reference)) if i not in writes and i not in optional]
    if not writes:
        return reads
    depends = reference_dependencies(reference)
    needed: set[int] = set()
    frontier = list(writes)
    while frontier:
        for dependency in depends.get(frontier.pop(), []):
            if dependency not in needed:
                needed.add(dependency)
                frontier.append(dependency)
    return [i for i in reads if i in needed]


def reference_checked_steps(
    reference: list[dict], effects: dict[str, str] | None, matcher: str = AUTO
) -> list[int]:
    """The reference steps `matcher` holds a run to; empty means only the outcome is checked."""
    optional = optional_steps(reference)
    if matcher in (AUTO, STATE):
        writes = [
            i
            for i, s in enumerate(reference)
            if _effect(effects, s.get("tool", "")) == WRITE and i not in optional
        ]
        reads = reference_counted_reads(reference, effects) if matcher == AUTO else []
        return sorted(writes + reads)
    return [i for i in range(len(reference)) if i not in optional]


@dataclass
class _Scorer:
    reference: list[dict]
    actual: list[ToolStep]
    task: str
    context: dict | None
    parameter_judge: ParameterJudge | None
    effects: dict[str, str] | None

    def __post_init__(self):
        self.output_fields = {
            _step_number(self.reference, i): list(step.get("acceptable_output_fields") or [])
            for i, step in enumerate(self.reference)
        }
        self.cache: dict[tuple[int, int], list] = {}

    def params(self, ref_index: int, act_index: int, earlier_outputs: dict) -> list:
        return step_parameter_scores(
            self.reference[ref_index],
            self.actual[act_index].inputs,
            task=self.task,
            context=self.context,
            step_outputs=earlier_outputs,
            output_fields=self.output_fields,
            judge=self.parameter_judge,
        )

    def tool_outputs_before(self, act_index: int) -> dict[int, list]:
        """Step N's output is any earlier successful output of step N's tool."""
        return {
            _step_number(self.reference, r): [
                s.output
                for s in self.actual[:act_index]
                if s.tool == step.get("tool") and not s.failed
            ]
            for r, step in enumerate(self.reference)
        }

    def state_params(self, ref_index: int, act_index: int) -> list:
        key = (ref_index, act_index)
        if key not in self.cache:
            self.cache[key] = self.params(ref_index, act_index, self.tool_outputs_before(act_index))
        return self.cache[key]

    def similarity(self, ref_index: int, act_index: int) -> float:
        """How alike a call's arguments are to a reference step's, for pairing repeated calls."""
        return mean_score(self.state_params(ref_index, act_index))


def trajectory_score(
    reference: list[dict],
    actual: list[ToolStep],
    *,
    task: str = "",
    context: dict | None = None,
    matcher: str = AUTO,
    path_judge: PathJudge | None = None,
    parameter_judge: ParameterJudge | None = None,
    effects: dict[str, str] | None = None,
) -> TrajectoryScore:
    """Align with `matcher`, then score the inputs of each aligned call.

    A failed call that was retried is scored by its last attempt. Under the in-order family,
    `<from_step_N_output>` resolves against the output of the agent's call aligned to step N;
    under the state matcher, against any earlier successful call of step N's tool.
    """
    all_calls = actual
    actual = last_attempts(all_calls)
    counts_reads = matcher == AUTO
    matcher = matcher_for(matcher, reference)
    scorer = _Scorer(reference, actual, task, context, parameter_judge, effects)
    if matcher == STATE:
        match, param_of, missing, shown = _state_alignment(
            reference, actual, scorer, effects, counts_reads
        )
    else:
        match, param_of = _in_order_alignment(matcher, reference, actual, scorer, task, path_judge)
        missing, shown = 0, {act: ref for ref, act in match.pairs}
    aligned = {act: ref for ref, act in match.pairs}
    step_scores = [
        _step_score(
            reference,
            step,
            aligned.get(index),
            shown.get(index),
            param_of.get(index, []),
            counted=matcher != STATE or _effect(effects, step.tool) == WRITE or index in aligned,
        )
        for index, step in enumerate(actual)
    ]
    # One score per aligned call (param_of holds exactly those), and none for missing steps.
    pair_scores = [mean_score(params) for params in param_of.values()]
    pair_scores += [0.0] * missing
    if pair_scores:
        parameter_accuracy: float | None = sum(pair_scores) / len(pair_scores)
    elif matcher == STATE:
        parameter_accuracy = None
    else:
        # Nothing aligned: no parameter can be right unless nothing was expected.
        parameter_accuracy = None if not reference else 0.0
    undecided = match.unreadable or any(
        p.method == UNREADABLE for params in param_of.values() for p in params
    )
    failed_writes = [
        {"span_id": s.span_id, "tool": s.tool, "inputs": s.inputs}
        for s in all_calls
        if s.failed and _effect(effects, s.tool) == WRITE
    ]
    return TrajectoryScore(
        matcher=match.matcher,
        matched=match.matched,
        tool_selection_accuracy=match.tool_selection_accuracy,
        parameter_accuracy=parameter_accuracy,
        efficiency=efficiency(len(reference), len(all_calls)),
        precision=match.precision,
        recall=match.recall,
        calls=len(all_calls),
        reference_calls=len(reference),
        reason=match.reason,
        steps=step_scores,
        retried_calls=len(all_calls) - len(actual),
        failed_writes=failed_writes,
        judge_unreadable=undecided,
    )


def _state_alignment(reference, actual, scorer, effects, counts_reads: bool):
    """The state matcher's alignment: writes (and counted reads) paired by the state they leave.

    Returns the match, each aligned call's parameters, how many counted reference steps the
    agent never made, and the reference step each call is shown against (reads not counted
    are shown against the reference's other reads, in order)."""
    optional = optional_steps(reference)
    ref_writes = [
        i for i, s in enumerate(reference) if _effect(effects, s.get("tool", "")) == WRITE
    ]
    act_writes = [
        i for i, s in enumerate(actual) if _effect(effects, s.tool) == WRITE and not s.failed
    ]
    ref_reads = reference_counted_reads(reference, effects) if counts_reads else []
    act_reads = [
        i for i, s in enumerate(actual) if i not in act_writes and not s.failed
    ] if ref_reads else []  # fmt: skip
    match = match_state(
        [s.get("tool", "") for s in reference],
        [s.tool for s in actual],
        (ref_writes, act_writes),
        lambda r, a: arguments_match(scorer.state_params(r, a)),
        reference_dependencies(reference),
        similarity=scorer.similarity,
        read_indexes=(ref_reads, act_reads),
        optional=optional,
    )
    param_of = {a: scorer.state_params(r, a) for r, a in match.pairs}
    # A counted reference step the agent never made has no right parameter.
    counted = [r for r in ref_writes + ref_reads if r not in optional]
    missing = len(counted) - len([p for p in match.pairs if p[0] not in optional])
    aligned = {act: ref for ref, act in match.pairs}
    shown = dict(aligned)
    shown_refs = [i for i in range(len(reference)) if i not in ref_writes + ref_reads]
    shown_acts = [i for i in range(len(actual)) if i not in act_writes and i not in aligned]
    read_pairs = match_in_order(
        [reference[i].get("tool", "") for i in shown_refs],
        [actual[i].tool for i in shown_acts],
    ).pairs
    shown.update({shown_acts[a]: shown_refs[r] for r, a in read_pairs})
    return match, param_of, missing, shown


def _in_order_alignment(matcher, reference, actual, scorer, task, path_judge):
    """An in-order family alignment and each aligned call's parameters, where
    `<from_step_N_output>` reads the output of the call aligned to step N."""
    actual_dicts = [{"tool": s.tool, "inputs": s.inputs} for s in actual]
    match = trajectory_match(
        matcher,
        reference,
        actual_dicts,
        task=task,
        path_judge=path_judge,
        similarity=scorer.similarity,
    )
    param_of = {}
    for r, a in match.pairs:
        earlier = {
            _step_number(reference, r2): actual[a2].output for r2, a2 in match.pairs if a2 < a
        }
        param_of[a] = scorer.params(r, a, earlier)
    return match, param_of


def _step_score(reference, step, ref_index, seen_as, params, *, counted: bool) -> StepScore:
    """One call's row: an aligned call with its parameters' scores; any other with the
    reference step it is shown against, if any, and no score."""
    if ref_index is None:
        number = _step_number(reference, seen_as) if seen_as is not None else None
        return StepScore(step.span_id, step.component, step.tool, number, None, counted=counted)
    return StepScore(
        step.span_id,
        step.component,
        step.tool,
        _step_number(reference, ref_index),
        mean_score(params),
        [
            {"name": p.name, "score": p.score, "method": p.method, "actual": p.actual}
            for p in params
        ],
    )
