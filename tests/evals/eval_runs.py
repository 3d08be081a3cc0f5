"""Eval runs for gate tests: overall metrics of a passing baseline, changed by what a test names."""

from golden.models import DatasetVersion, EvalRun

BASELINE = {
    "outcome_score": 0.90,
    "tool_selection_accuracy": 0.95,
    "parameter_accuracy": 0.92,
    "efficiency": 0.90,
    "pass_at_k": 0.80,
    "pass_hat_k": 0.60,
    "red_flag_rate": 0.10,
}


def eval_run(dataset: DatasetVersion, name: str, *, noop: bool = False, **changes) -> EvalRun:
    """A run of the support agent (its version named `name`) on the dataset."""
    return EvalRun.objects.create(
        name=name,
        agent_name="support-agent",
        agent_version=name,
        dataset_version=dataset,
        is_noop=noop,
        metrics={"overall": {**BASELINE, **changes}},
    )
