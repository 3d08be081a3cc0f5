"""The reference trajectory: ordered tool steps an agent is expected to take.

Shape: ``[{"step": 1, "tool": "get_recent_orders", "inputs": {...},
"acceptable_output_fields": ["orders"]}, ...]``. An input value may be a literal or a
placeholder: ``<from_context>`` (taken from the task or its context) or
``<from_step_N_output>`` (taken from the output of an earlier step N). An optional
``"after": [N, ...]`` says a step must come after those steps; without it, and without a
placeholder naming another step's output, steps that write may happen in any order. An
optional ``"optional": true`` says a run may leave the step out.

An input may also state what it accepts: ``{"optional": true}`` (may be left out),
``{"any_of": ["San Francisco", "SF"]}`` (either value), or both; numbers are equal across
int and float (5 and 5.0). See docs/trajectory-checks.md.
"""

import re
from typing import Any

from evalsite_checks.parameter_specs import parameter_spec_errors

STEP_KEYS = ("step", "tool", "inputs", "acceptable_output_fields")
OPTIONAL_STEP_KEYS = ("after", "optional")
FROM_CONTEXT = "<from_context>"
STEP_OUTPUT_PATTERN = re.compile(r"^<from_step_(\d+)_output>$")
PLACEHOLDER_LIKE = re.compile(r"^<[a-z_0-9]+>$")


def from_step_output(step: int) -> str:
    return f"<from_step_{step}_output>"


def _placeholder_errors(value: Any, step: int, path: str, errors: dict[str, str]) -> None:
    spec_errors = parameter_spec_errors(value)
    if spec_errors:
        errors[path] = "; ".join(spec_errors)
        return
    if isinstance(value, dict):
        for key, inner in value.items():
            _placeholder_errors(inner, step, f"{path}.{key}", errors)
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            _placeholder_errors(inner, step, f"{path}[{index}]", errors)
    elif isinstance(value, str) and PLACEHOLDER_LIKE.match(value) and value != FROM_CONTEXT:
        match = STEP_OUTPUT_PATTERN.match(value)
        if not match:
            errors[path] = (
                f"unknown placeholder {value}; use <from_context> or <from_step_N_output>"
            )
        elif not 1 <= int(match.group(1)) < step:
            errors[path] = f"{value} must name an earlier step (1 to {step - 1})"


def reference_trajectory_errors(steps: Any) -> dict[str, str]:
    """Errors keyed by path (``reference_trajectory[0].tool``); empty when valid."""
    name = "reference_trajectory"
    if not isinstance(steps, list):
        return {name: "must be a JSON list of steps"}
    errors: dict[str, str] = {}
    for index, step in enumerate(steps):
        path = f"{name}[{index}]"
        if not isinstance(step, dict):
            errors[path] = f"must be an object with keys {', '.join(STEP_KEYS)}"
            continue
        missing = [key for key in STEP_KEYS if key not in step]
        extra = sorted(set(step) - set(STEP_KEYS) - set(OPTIONAL_STEP_KEYS))
        if missing:
            errors[path] = f"missing keys: {', '.join(missing)}"
        elif extra:
            errors[path] = f"unexpected keys: {', '.join(extra)}"
        number = step.get("step")
        if "step" in step and (isinstance(number, bool) or number != index + 1):
            errors[f"{path}.step"] = f"must be {index + 1} (steps are numbered 1, 2, 3 in order)"
        tool = step.get("tool")
        if "tool" in step and not (isinstance(tool, str) and tool.strip()):
            errors[f"{path}.tool"] = "must be the tool's name"
        inputs = step.get("inputs")
        if "inputs" in step:
            if not isinstance(inputs, dict):
                errors[f"{path}.inputs"] = "must be an object of parameter values"
            else:
                _placeholder_errors(inputs, index + 1, f"{path}.inputs", errors)
        if "after" in step:
            after = step["after"]
            numbers = after if isinstance(after, list) else [after]
            if not numbers or not all(
                isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= index for n in numbers
            ):
                errors[f"{path}.after"] = f"must list earlier step numbers (1 to {index})"
        if "optional" in step and not isinstance(step["optional"], bool):
            errors[f"{path}.optional"] = "must be true or false"
        fields = step.get("acceptable_output_fields")
        if "acceptable_output_fields" in step and not (
            isinstance(fields, list) and all(isinstance(f, str) and f for f in fields)
        ):
            errors[f"{path}.acceptable_output_fields"] = "must be a list of field names"
    return errors


def reference_from_answer_key(answer_key: Any) -> tuple[list[dict], dict[str, str]]:
    """A reference trajectory from an answer key in the function-calling benchmarks' form:
    ``[{"tool": {"param": [accepted values]}}]``, where ``""`` among the values means the
    parameter may be left out. Returns (steps, errors keyed by path); the calls may come in
    any order, as such keys mean.
    """
    name = "answer_key"
    if not isinstance(answer_key, list):
        return [], {name: 'must be a list of {"tool": {"param": [accepted values]}} calls'}
    steps: list[dict] = []
    errors: dict[str, str] = {}
    for index, call in enumerate(answer_key):
        path = f"{name}[{index}]"
        if not (isinstance(call, dict) and len(call) == 1):
            errors[path] = "must be an object with exactly one key, the tool's name"
            continue
        tool, params = next(iter(call.items()))
        if not isinstance(params, dict):
            errors[path] = "must map each parameter to its list of accepted values"
            continue
        inputs: dict[str, Any] = {}
        for param, accepted in params.items():
            if not (isinstance(accepted, list) and accepted):
                errors[f"{path}.{param}"] = (
                    'must be a non-empty list of accepted values ("" = optional)'
                )
                continue
            values = [v for v in accepted if v != ""]
            optional = len(values) < len(accepted)
            # A key's texts are a closed list: kept as any_of even when one, so no judge is
            # asked whether other words mean the same.
            if len(values) == 1 and not optional and not isinstance(values[0], str):
                inputs[param] = values[0]
            elif not values:
                inputs[param] = {"optional": True}
            else:
                inputs[param] = {"any_of": values, **({"optional": True} if optional else {})}
        steps.append(
            {"step": index + 1, "tool": tool, "inputs": inputs, "acceptable_output_fields": []}
        )
    return steps, errors
