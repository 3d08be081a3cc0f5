"""The metrics of an eval run, in one registry: their names in the order pages list them,
which way is better, and which of them the gate checks, are averaged, or are shown per task."""

HIGHER, LOWER = "higher_is_better", "lower_is_better"

METRICS = {
    "outcome_score": HIGHER,
    "tool_selection_accuracy": HIGHER,
    "parameter_accuracy": HIGHER,
    "efficiency": HIGHER,
    "pass_rate": HIGHER,
    "pass_at_k": HIGHER,
    "pass_hat_k": HIGHER,
    "red_flag_rate": LOWER,
    "input_tokens": LOWER,
    "output_tokens": LOWER,
    "cost_usd": LOWER,
}
LOWER_IS_BETTER = {name for name, better in METRICS.items() if better == LOWER}

# A candidate run is blocked when one of these drops past its threshold.
GATED_METRICS = {
    name: METRICS[name]
    for name in (
        "outcome_score",
        "tool_selection_accuracy",
        "parameter_accuracy",
        "efficiency",
        "pass_at_k",
        "pass_hat_k",
        "red_flag_rate",
    )
}
# Averaged over a task's trials and over the run.
MEAN_METRICS = (
    "outcome_score",
    "tool_selection_accuracy",
    "parameter_accuracy",
    "efficiency",
    "red_flag_rate",
)
# Compared task by task, and charted run by run.
TASK_METRICS = ("outcome_score", "tool_selection_accuracy", "parameter_accuracy", "pass_hat_k")
