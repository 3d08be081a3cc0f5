"""The tool world of a golden example: what its tools are, what they return, how they fail.

Shape (every key optional; an example without a world stores ``{}``)::

    {
      "tools": [{"name", "description", "input_schema"}],
      "recordings": [{"tool", "arguments", "result"}],
      "unrecorded": {"kind": "error", "status": 404, "message": "..."}
                  | {"kind": "result", "result": ...},
      "variants": [{"name", "expected_behavior", "faults": [FAULT, ...]}]
    }

A recording answers a call of its tool whose arguments are equivalent under the trajectory
matchers' parameter rules (evalsite_checks/worlds/matching.py). FAULT is
``{"tool", "kind", ...}`` with a trigger (``"at_call": N``, the Nth call of the tool in the
trial, or ``"arguments"``, calls whose arguments match; neither means every call) and the
kind's own keys:

- ``error``: ``status`` (400..599, default 500) and ``message``;
- ``empty``: the result's empty form (``[]``, ``{}``, ``""`` or null);
- ``malformed``: ``"malformed"`` is ``truncated_json``, ``wrong_types`` or ``extra_field``;
- ``timeout``: the answer is held ``seconds`` (default 2, at most 30), then a 504;
- ``contradictory``: ``result`` replaces the recorded one and ``contradicts`` names the tool
  whose answer it disagrees with.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from evalsite_checks.parameter_specs import parameter_spec_errors

FAULT_KINDS = ("error", "empty", "malformed", "timeout", "contradictory")
MALFORMED_SHAPES = ("truncated_json", "wrong_types", "extra_field")
UNRECORDED_KINDS = ("error", "result")
DEFAULT_UNRECORDED = {
    "kind": "error",
    "status": 404,
    "message": "No recorded result for these arguments.",
}
DEFAULT_ERROR_STATUS = 500
DEFAULT_TIMEOUT_SECONDS = 2.0
MAX_TIMEOUT_SECONDS = 30.0
NAME = re.compile(r"^[A-Za-z0-9_.:-]{1,100}$")
WORLD_KEYS = {"tools", "recordings", "unrecorded", "variants"}
TOOL_KEYS = {"name", "description", "input_schema", "case_sensitive", "case_sensitive_params"}
RECORDING_KEYS = {"tool", "arguments", "result"}
VARIANT_KEYS = {"name", "expected_behavior", "faults"}
FAULT_KEYS = {
    "tool",
    "kind",
    "at_call",
    "arguments",
    "status",
    "message",
    "malformed",
    "seconds",
    "result",
    "contradicts",
}


def _extra(value: dict, allowed: set[str], path: str, errors: dict[str, str]) -> None:
    extra = set(value) - allowed
    if extra:
        errors[path] = f"unexpected keys: {', '.join(sorted(extra))}"


def _name_error(value: Any) -> str | None:
    if not (isinstance(value, str) and NAME.match(value)):
        return "must be a name of letters, digits, _ . : or - (at most 100)"
    return None


def _status_error(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 400 <= value <= 599:
        return "must be an HTTP error status, 400 to 599"
    return None


def _objects(
    entries: list, list_path: str, shape: str, keys: set[str], errors: dict[str, str]
) -> Iterator[tuple[str, dict]]:
    """Each entry of a list that is an object, with its path; unknown keys are errors."""
    for index, entry in enumerate(entries):
        path = f"{list_path}[{index}]"
        if not isinstance(entry, dict):
            errors[path] = f"must be an object with {shape}"
            continue
        _extra(entry, keys, path, errors)
        yield path, entry


def _unique_name_check(
    entry: dict, path: str, kind: str, seen: set[str], errors: dict[str, str]
) -> None:
    """The entry's name is a valid name that no earlier tool (or variant) took."""
    problem = _name_error(entry.get("name"))
    if problem:
        errors[f"{path}.name"] = problem
    elif entry["name"] in seen:
        errors[f"{path}.name"] = f"repeats the {kind} {entry['name']!r}"
    else:
        seen.add(entry["name"])


def _tools_errors(tools: Any, errors: dict[str, str]) -> set[str]:
    if not isinstance(tools, list):
        errors["tool_world.tools"] = "must be a list of {name, description, input_schema}"
        return set()
    names: set[str] = set()
    shape = "name, description and input_schema"
    for path, tool in _objects(tools, "tool_world.tools", shape, TOOL_KEYS, errors):
        _unique_name_check(tool, path, "tool", names, errors)
        if not isinstance(tool.get("description", ""), str):
            errors[f"{path}.description"] = "must be text"
        schema = tool.get("input_schema", {"type": "object"})
        if not (isinstance(schema, dict) and schema.get("type", "object") == "object"):
            errors[f"{path}.input_schema"] = 'must be a JSON schema of "type": "object"'
    return names


def _arguments_errors(arguments: Any, path: str, errors: dict[str, str]) -> None:
    if not isinstance(arguments, dict):
        errors[path] = "must be a JSON object of argument names to values"
        return
    for key, value in arguments.items():
        problems = parameter_spec_errors(value)
        if problems:
            errors[f"{path}.{key}"] = "; ".join(problems)


def _tool_ref_error(tool: Any, names: set[str]) -> str | None:
    problem = _name_error(tool)
    if problem:
        return problem
    if tool not in names:
        return f"no tool named {tool!r} in tool_world.tools"
    return None


def _recordings_errors(recordings: Any, names: set[str], errors: dict[str, str]) -> None:
    if not isinstance(recordings, list):
        errors["tool_world.recordings"] = "must be a list of {tool, arguments, result}"
        return
    shape = "tool, arguments and result"
    for path, recording in _objects(
        recordings, "tool_world.recordings", shape, RECORDING_KEYS, errors
    ):
        problem = _tool_ref_error(recording.get("tool"), names)
        if problem:
            errors[f"{path}.tool"] = problem
        _arguments_errors(recording.get("arguments", {}), f"{path}.arguments", errors)
        if "result" not in recording:
            errors[f"{path}.result"] = "is required (null is a result)"


def _unrecorded_errors(unrecorded: Any, errors: dict[str, str]) -> None:
    path = "tool_world.unrecorded"
    if not isinstance(unrecorded, dict) or unrecorded.get("kind") not in UNRECORDED_KINDS:
        errors[path] = (
            'must be {"kind": "error", "status", "message"} or {"kind": "result", "result"}'
        )
        return
    if unrecorded["kind"] == "error":
        _extra(unrecorded, {"kind", "status", "message"}, path, errors)
        problem = _status_error(unrecorded.get("status", 404))
        if problem:
            errors[f"{path}.status"] = problem
        if not isinstance(unrecorded.get("message", ""), str):
            errors[f"{path}.message"] = "must be text"
    else:
        _extra(unrecorded, {"kind", "result"}, path, errors)
        if "result" not in unrecorded:
            errors[f"{path}.result"] = "is required"


def _fault_errors(fault: dict, path: str, names: set[str], errors: dict[str, str]) -> None:
    problem = _tool_ref_error(fault.get("tool"), names)
    if problem:
        errors[f"{path}.tool"] = problem
    kind = fault.get("kind")
    if kind not in FAULT_KINDS:
        errors[f"{path}.kind"] = f"must be one of {', '.join(FAULT_KINDS)}"
        return
    at_call = fault.get("at_call")
    if at_call is not None and (
        isinstance(at_call, bool) or not isinstance(at_call, int) or at_call < 1
    ):
        errors[f"{path}.at_call"] = "must be a call number, 1 or more"
    if at_call is not None and "arguments" in fault:
        errors[path] = "give at_call or arguments, not both"
    if "arguments" in fault:
        _arguments_errors(fault["arguments"], f"{path}.arguments", errors)
    if kind == "error":
        problem = _status_error(fault.get("status", DEFAULT_ERROR_STATUS))
        if problem:
            errors[f"{path}.status"] = problem
        if not (isinstance(fault.get("message"), str) and fault["message"].strip()):
            errors[f"{path}.message"] = "must say what went wrong, as the tool would"
    if kind == "malformed" and fault.get("malformed") not in MALFORMED_SHAPES:
        errors[f"{path}.malformed"] = f"must be one of {', '.join(MALFORMED_SHAPES)}"
    if kind == "timeout":
        seconds = fault.get("seconds", DEFAULT_TIMEOUT_SECONDS)
        if (
            isinstance(seconds, bool)
            or not isinstance(seconds, int | float)
            or not 0 <= seconds <= MAX_TIMEOUT_SECONDS
        ):
            errors[f"{path}.seconds"] = f"must be a number of seconds, 0 to {MAX_TIMEOUT_SECONDS:g}"
    if kind == "contradictory":
        if "result" not in fault:
            errors[f"{path}.result"] = "is required: the answer that contradicts the other tool"
        problem = _tool_ref_error(fault.get("contradicts"), names)
        if problem:
            errors[f"{path}.contradicts"] = problem


def _variants_errors(variants: Any, names: set[str], errors: dict[str, str]) -> None:
    if not isinstance(variants, list):
        errors["tool_world.variants"] = "must be a list of {name, expected_behavior, faults}"
        return
    seen: set[str] = set()
    shape = "name, expected_behavior and faults"
    for path, variant in _objects(variants, "tool_world.variants", shape, VARIANT_KEYS, errors):
        _unique_name_check(variant, path, "variant", seen, errors)
        behavior = variant.get("expected_behavior")
        if not (isinstance(behavior, str) and behavior.strip()):
            errors[f"{path}.expected_behavior"] = (
                "must say what the agent should do (retry, report the failure, ask the user)"
            )
        faults = variant.get("faults")
        if not (isinstance(faults, list) and faults):
            errors[f"{path}.faults"] = "must be a non-empty list of faults"
            continue
        for fault_path, fault in _objects(
            faults, f"{path}.faults", "tool and kind", FAULT_KEYS, errors
        ):
            _fault_errors(fault, fault_path, names, errors)


def tool_world_errors(world: Any) -> dict[str, str]:
    """Errors keyed by path (``tool_world.variants[0].faults[1].kind``); empty when valid."""
    if not isinstance(world, dict):
        return {"tool_world": "must be a JSON object (empty when the example has no world)"}
    errors: dict[str, str] = {}
    _extra(world, WORLD_KEYS, "tool_world", errors)
    names = _tools_errors(world.get("tools", []), errors)
    _recordings_errors(world.get("recordings", []), names, errors)
    if "unrecorded" in world:
        _unrecorded_errors(world["unrecorded"], errors)
    _variants_errors(world.get("variants", []), names, errors)
    return errors


def tool_world_normalize(world: dict) -> dict:
    """The stored form of a valid world: every key present, texts stripped; {} stays {}."""
    if not world:
        return {}
    return {
        "tools": [
            {
                "name": tool["name"],
                "description": (tool.get("description") or "").strip(),
                "input_schema": tool.get("input_schema") or {"type": "object"},
                **{k: tool[k] for k in ("case_sensitive", "case_sensitive_params") if k in tool},
            }
            for tool in world.get("tools", [])
        ],
        "recordings": [
            {"tool": r["tool"], "arguments": r.get("arguments", {}), "result": r["result"]}
            for r in world.get("recordings", [])
        ],
        "unrecorded": world.get("unrecorded") or dict(DEFAULT_UNRECORDED),
        "variants": [
            {**variant, "expected_behavior": variant["expected_behavior"].strip()}
            for variant in world.get("variants", [])
        ],
    }


def world_variant(world: dict, name: str) -> dict | None:
    """The variant of that name; None for the base world ("") or an unknown name."""
    if not name:
        return None
    return next((v for v in (world or {}).get("variants", []) if v["name"] == name), None)


def variant_content(content: dict, variant_name: str) -> dict:
    """What a trial in a variant is judged against: the example, or for a fault variant its
    expected behaviour instead of the base world's path and outcome, which the fault changes."""
    variant = world_variant(content.get("tool_world") or {}, variant_name)
    if variant is None:
        return content
    return {
        **content,
        "reference_trajectory": [],
        "expected_outcome": "",
        "outcome_rubric": None,
        "expected_behavior": variant["expected_behavior"],
    }


def entry_variants(content: dict) -> list[str]:
    """The tasks an entry makes in a tool-world run: the base world, then each variant."""
    world = content.get("tool_world") or {}
    return ["", *(variant["name"] for variant in world.get("variants", []))]


def task_key(example_key: str, variant: str) -> str:
    """How reports name a task: the example key, with `@variant` for a fault variant."""
    return f"{example_key}@{variant}" if variant else example_key
