"""One validation of golden example data, shared by the form, the API and JSONL import."""

from typing import Any

from evalsite_checks.worlds.schema import tool_world_errors, tool_world_normalize

from golden.models import AdversarialKind
from golden.red_flag_rules import red_flag_normalize, red_flags_errors
from golden.reference_trajectory import reference_trajectory_errors

# The dataset content of an example: what a version hashes and an export line carries.
CONTENT_FIELDS = (
    "key",
    "task",
    "task_type",
    "context",
    "reference_trajectory",
    "expected_outcome",
    "outcome_rubric",
    "expected_behavior",
    "failure_tags",
    "red_flags",
    "adversarial_kind",
    "held_out",
    "tool_world",
)
TEXT_FIELDS = ("task_type", "expected_outcome", "expected_behavior")
DEFAULTS: dict[str, Any] = {
    "task_type": "",
    "context": {},
    "reference_trajectory": [],
    "expected_outcome": "",
    "outcome_rubric": None,
    "expected_behavior": "",
    "failure_tags": [],
    "red_flags": [],
    "adversarial_kind": "",
    "held_out": False,
    "tool_world": {},
}


class ExampleInvalid(Exception):
    """Example data broke a rule; ``errors`` maps a field path to what is wrong with it."""

    def __init__(self, errors: dict[str, str]):
        super().__init__("; ".join(f"{path}: {message}" for path, message in errors.items()))
        self.errors = errors


def example_data_clean(data: Any, *, allow_key: bool = False) -> dict:
    """Validate example data and return it with defaults filled; raise ExampleInvalid."""
    if not isinstance(data, dict):
        raise ExampleInvalid({"non_field_errors": "must be a JSON object"})
    known = set(CONTENT_FIELDS) if allow_key else set(CONTENT_FIELDS) - {"key"}
    errors: dict[str, str] = {}
    for name in sorted(set(data) - known):
        errors[name] = "unknown field"
    cleaned = {**DEFAULTS, **{k: v for k, v in data.items() if k in known}}
    task = cleaned.get("task")
    if not (isinstance(task, str) and task.strip()):
        errors["task"] = "must be the user's request, a non-empty text"
    for name in TEXT_FIELDS:
        if not isinstance(cleaned[name], str):
            errors[name] = "must be text"
    if (
        allow_key
        and "key" in data
        and not (isinstance(data["key"], str) and 0 < len(data["key"]) <= 64)
    ):
        errors["key"] = "must be a text id of at most 64 characters"
    if not isinstance(cleaned["context"], dict):
        errors["context"] = "must be a JSON object"
    if cleaned["outcome_rubric"] == "":
        cleaned["outcome_rubric"] = None
    rubric = cleaned["outcome_rubric"]
    if rubric is not None and not (isinstance(rubric, str) and rubric.strip()):
        errors["outcome_rubric"] = "must be a rubric name or null"
    tags = cleaned["failure_tags"]
    if not (isinstance(tags, list) and all(isinstance(t, str) and t.strip() for t in tags)):
        errors["failure_tags"] = "must be a list of tag names"
    if cleaned["adversarial_kind"] not in AdversarialKind.values:
        kinds = ", ".join(v for v in AdversarialKind.values if v)
        errors["adversarial_kind"] = f"must be empty or one of {kinds}"
    if not isinstance(cleaned["held_out"], bool):
        errors["held_out"] = "must be true or false"
    errors.update(reference_trajectory_errors(cleaned["reference_trajectory"]))
    errors.update(red_flags_errors(cleaned["red_flags"]))
    errors.update(tool_world_errors(cleaned["tool_world"]))
    if errors:
        raise ExampleInvalid(errors)
    cleaned["task"] = task.strip()
    cleaned["task_type"] = cleaned["task_type"].strip()
    cleaned["failure_tags"] = sorted({t.strip() for t in tags})
    cleaned["red_flags"] = [red_flag_normalize(flag) for flag in cleaned["red_flags"]]
    cleaned["tool_world"] = tool_world_normalize(cleaned["tool_world"])
    return cleaned
