"""Score one trajectory against a reference: tool selection, parameters, efficiency, per step."""

from __future__ import annotations

from dataclasses import dataclass, field

from judges.trajectory.matchers import IN_ORDER, PathJudge, efficiency, trajectory_match
from judges.trajectory.parameters import ParameterJudge, mean_score, step_parameter_scores
from judges.trajectory.steps import ToolStep


@dataclass
class StepScore:
    """One of the agent's tool calls: was it a reference tool, and how right were its inputs."""

    span_id: str
    component: str
    tool: str
    reference_step: int | None
    parameter_accuracy: float | None
    parameters: list[dict] = field(default_factory=list)

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
            "steps": [
                {
                    "span_id": s.span_id,
                    "component": s.component,
                    "tool": s.tool,
                    "reference_step": s.reference_step,
                    "parameter_accuracy": s.parameter_accuracy,
                    "parameters": s.parameters,
                }
                for s in self.steps
            ],
        }


def _step_number(reference: list[dict], index: int) -> int:
    return int(reference[index].get("step") or index + 1)


def trajectory_score(
    reference: list[dict],
    actual: list[ToolStep],
    *,
    task: str = "",
    context: dict | None = None,
    matcher: str = IN_ORDER,
    path_judge: PathJudge | None = None,
    parameter_judge: ParameterJudge | None = None,
) -> TrajectoryScore:
    """Align with `matcher`, then score the inputs of each aligned call.

    Placeholders `<from_step_N_output>` resolve against the output of the agent's call that
    was aligned to reference step N, and only if that call came earlier.
    """
    actual_dicts = [{"tool": s.tool, "inputs": s.inputs} for s in actual]
    match = trajectory_match(matcher, reference, actual_dicts, task=task, path_judge=path_judge)
    aligned = dict((act, ref) for ref, act in match.pairs)
    output_fields = {
        _step_number(reference, i): list(step.get("acceptable_output_fields") or [])
        for i, step in enumerate(reference)
    }
    step_scores: list[StepScore] = []
    pair_scores: list[float] = []
    for act_index, step in enumerate(actual):
        ref_index = aligned.get(act_index)
        if ref_index is None:
            step_scores.append(StepScore(step.span_id, step.component, step.tool, None, None))
            continue
        earlier_outputs = {
            _step_number(reference, r): actual[a].output for r, a in match.pairs if a < act_index
        }
        params = step_parameter_scores(
            reference[ref_index],
            step.inputs,
            task=task,
            context=context,
            step_outputs=earlier_outputs,
            output_fields=output_fields,
            judge=parameter_judge,
        )
        score = mean_score(params)
        pair_scores.append(score)
        step_scores.append(
            StepScore(
                step.span_id,
                step.component,
                step.tool,
                _step_number(reference, ref_index),
                score,
                [
                    {"name": p.name, "score": p.score, "method": p.method, "actual": p.actual}
                    for p in params
                ],
            )
        )
    if pair_scores:
        parameter_accuracy: float | None = sum(pair_scores) / len(pair_scores)
    else:
        # Nothing aligned: no parameter can be right unless nothing was expected.
        parameter_accuracy = None if not reference else 0.0
    return TrajectoryScore(
        matcher=match.matcher,
        matched=match.matched,
        tool_selection_accuracy=match.tool_selection_accuracy,
        parameter_accuracy=parameter_accuracy,
        efficiency=efficiency(len(reference), len(actual)),
        precision=match.precision,
        recall=match.recall,
        calls=len(actual),
        reference_calls=len(reference),
        reason=match.reason,
        steps=step_scores,
    )
