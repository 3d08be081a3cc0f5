"""What a tool world answers to one call: the recording that matches, the declared default,
or the fault that fires at that call, and the refusals (an unknown tool, arguments the tool's
schema refuses).

The server (golden/worlds/serving.py) and the pytest plugin (evalsite-pytest) both answer
from here; each counts the calls itself (the server under the trial's row lock) and records
them its own way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import jsonschema

from evalsite_checks.worlds.matching import arguments_match, recording_find, world_case_sensitive
from evalsite_checks.worlds.schema import (
    DEFAULT_ERROR_STATUS,
    DEFAULT_TIMEOUT_SECONDS,
    DEFAULT_UNRECORDED,
)

OK = 200
TIMEOUT_STATUS = 504
UNKNOWN_TOOL_STATUS = 404
INVALID_ARGUMENTS_STATUS = 400
# The extra field a malformed answer carries, named so nobody mistakes it for real data.
EXTRA_FIELD = "unexpected_field"


@dataclass(frozen=True)
class Answer:
    """A world's answer: a status, a JSON body (None when `raw` is malformed on purpose), the
    raw text, how long to hold it, the index of the recording that answered, and the fault that
    fired (None when none did)."""

    status: int
    body: Any
    raw: str | None = None
    delay_seconds: float = 0.0
    recording: int | None = None
    fault: dict | None = None

    @property
    def text(self) -> str:
        return self.raw if self.raw is not None else json.dumps(self.body, ensure_ascii=False)


def world_error(code: str, message: str, field: str | None = None) -> dict:
    """The error body of a world's answer: the shape of every evalsite API error
    (core/errors.py `error_body`)."""
    return {
        "error": {"code": code, "message": message, "fields": {field: [message]} if field else {}}
    }


def world_tools(world: dict) -> list[dict]:
    return list(world.get("tools", []))


def arguments_problem(world: dict, tool: str, arguments: Any) -> tuple[str, str] | None:
    """(field, message) when the arguments are not what the tool's schema accepts."""
    if not isinstance(arguments, dict):
        return "arguments", "must be a JSON object of argument names to values"
    schema = next((t["input_schema"] for t in world_tools(world) if t["name"] == tool), None)
    try:
        jsonschema.validate(arguments, schema or {"type": "object"})
    except jsonschema.ValidationError as exc:
        field = ".".join(str(p) for p in exc.absolute_path) or "arguments"
        if exc.validator == "required":
            missing = next((name for name in exc.validator_value if name not in arguments), "")
            field = missing or field
        return field, exc.message
    except jsonschema.SchemaError:
        return None  # a curator's broken schema is not the agent's fault: serve unchecked
    return None


def refusal(world: dict, tool: str, arguments: Any) -> Answer | None:
    """The answer to a call the world does not serve (an unknown tool, 404; arguments the
    tool's schema refuses, 400 naming the argument); None when the call is served."""
    names = {t["name"] for t in world_tools(world)}
    if tool not in names:
        offered = ", ".join(sorted(names)) or "none"
        message = f"No tool named {tool!r}; offered: {offered}."
        return Answer(UNKNOWN_TOOL_STATUS, world_error("unknown_tool", message))
    problem = arguments_problem(world, tool, arguments)
    if problem:
        body = world_error("invalid_arguments", problem[1], field=problem[0])
        return Answer(INVALID_ARGUMENTS_STATUS, body)
    return None


def base_answer(world: dict, tool: str, arguments: dict) -> Answer:
    """The answer before any fault: the first matching recording, else the declared default."""
    index = recording_find(world, tool, arguments)
    if index is not None:
        return Answer(OK, {"result": world["recordings"][index]["result"]}, recording=index)
    default = world.get("unrecorded") or DEFAULT_UNRECORDED
    if default["kind"] == "result":
        return Answer(OK, {"result": default["result"]})
    message = default.get("message") or DEFAULT_UNRECORDED["message"]
    return Answer(default.get("status", 404), world_error("no_recording", message))


def _empty_like(value: Any) -> Any:
    if isinstance(value, list):
        return []
    if isinstance(value, dict):
        return {}
    if isinstance(value, str):
        return ""
    return None


def _wrong_types(value: Any) -> Any:
    """Every number becomes text and every text a one-item list: same data, wrong shape."""
    if isinstance(value, dict):
        return {key: _wrong_types(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_wrong_types(inner) for inner in value]
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return [value]
    return value


def fault_fires(fault: dict, tool: str, nth: int, arguments: dict, sensitive: set[str]) -> bool:
    """Whether `fault` fires at the `nth` served call of `tool` (calls refused with a 400 do
    not count) with these arguments."""
    if fault["tool"] != tool:
        return False
    if fault.get("at_call") is not None:
        return fault["at_call"] == nth
    if "arguments" in fault:
        return arguments_match(fault["arguments"], arguments, case_sensitive=sensitive)
    return True


def fault_firing(world: dict, variant: dict | None, tool: str, nth: int, arguments: dict):
    """The first of the variant's faults that fires at this call; None when none does."""
    sensitive = world_case_sensitive(world, tool, arguments)
    faults = (variant or {}).get("faults", [])
    return next((f for f in faults if fault_fires(f, tool, nth, arguments, sensitive)), None)


def faulted(fault: dict, answer: Answer) -> Answer:
    """`answer` (the unfaulted one) as the fault changes it."""
    kind = fault["kind"]
    result = answer.body.get("result") if answer.status == OK else None

    def changed(status: int, body: Any, raw: str | None = None, delay: float = 0.0) -> Answer:
        return Answer(status, body, raw, delay, answer.recording, fault)

    if kind == "error":
        status = fault.get("status", DEFAULT_ERROR_STATUS)
        return changed(status, world_error("tool_error", fault["message"]))
    if kind == "timeout":
        seconds = float(fault.get("seconds", DEFAULT_TIMEOUT_SECONDS))
        message = f"The tool did not answer within {seconds:g} s."
        return changed(TIMEOUT_STATUS, world_error("timeout", message), delay=seconds)
    if kind == "empty":
        return changed(OK, {"result": _empty_like(result)})
    if kind == "contradictory":
        return changed(OK, {"result": fault["result"]})
    shape = fault["malformed"]
    if shape == "wrong_types":
        return changed(OK, {"result": _wrong_types(result)})
    if shape == "extra_field":
        if isinstance(result, dict):
            return changed(OK, {"result": {**result, EXTRA_FIELD: "?"}})
        return changed(OK, {"result": result, EXTRA_FIELD: "?"})
    text = json.dumps({"result": result}, ensure_ascii=False)
    return changed(OK, None, text[: max(1, len(text) // 2)])
