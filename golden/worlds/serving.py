"""Answer a call to a trial's tool world, injecting the trial's fault, and record it.

Both transports (plain HTTP in golden/worlds/api.py, MCP in golden/worlds/mcp_server.py) call
`tool_world_call`; it decides the answer and writes the ToolWorldCall in one transaction that
holds the trial's row lock, so concurrent calls of one trial number 1, 2, 3 ... without gaps
and "the Nth call" means the same thing however fast the agent calls. A timeout's wait happens
after the lock is released.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import jsonschema
from django.db import transaction

from core.errors import error_body
from golden.masking import entry_masker
from golden.models import EvalTrial, ToolWorldCall
from golden.worlds.matching import arguments_match, recording_find, world_case_sensitive
from golden.worlds.schema import (
    DEFAULT_ERROR_STATUS,
    DEFAULT_TIMEOUT_SECONDS,
    DEFAULT_UNRECORDED,
    world_variant,
)

OK = 200
TIMEOUT_STATUS = 504
# The extra field a malformed answer carries, named so nobody mistakes it for real data.
EXTRA_FIELD = "unexpected_field"


@dataclass(frozen=True)
class WorldAnswer:
    """What the world answers: a status, a JSON body (or a raw text when malformed on purpose),
    how long to hold the answer, and the call as recorded."""

    status: int
    body: Any
    raw: str | None
    delay_seconds: float
    call: ToolWorldCall

    @property
    def text(self) -> str:
        return self.raw if self.raw is not None else json.dumps(self.body, ensure_ascii=False)


def _error(code: str, message: str, field: str | None = None) -> dict:
    return error_body(code, message, {field: [message]} if field else None)


def world_tools(world: dict) -> list[dict]:
    return list(world.get("tools", []))


def _arguments_problem(world: dict, tool: str, arguments: Any) -> tuple[str, str] | None:
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


def _fault_fires(fault: dict, tool: str, nth: int, arguments: dict, sensitive: set[str]) -> bool:
    if fault["tool"] != tool:
        return False
    if fault.get("at_call") is not None:
        return fault["at_call"] == nth
    if "arguments" in fault:
        return arguments_match(fault["arguments"], arguments, case_sensitive=sensitive)
    return True


def _faulted(fault: dict, status: int, body: Any) -> tuple[int, Any, str | None, float]:
    """(status, body, raw text, delay) after the fault; `body` is the unfaulted answer."""
    kind = fault["kind"]
    result = body.get("result") if status == OK else None
    if kind == "error":
        status = fault.get("status", DEFAULT_ERROR_STATUS)
        return status, _error("tool_error", fault["message"]), None, 0.0
    if kind == "timeout":
        seconds = float(fault.get("seconds", DEFAULT_TIMEOUT_SECONDS))
        message = f"The tool did not answer within {seconds:g} s."
        return TIMEOUT_STATUS, _error("timeout", message), None, seconds
    if kind == "empty":
        return OK, {"result": _empty_like(result)}, None, 0.0
    if kind == "contradictory":
        return OK, {"result": fault["result"]}, None, 0.0
    shape = fault["malformed"]
    if shape == "wrong_types":
        return OK, {"result": _wrong_types(result)}, None, 0.0
    if shape == "extra_field":
        if isinstance(result, dict):
            return OK, {"result": {**result, EXTRA_FIELD: "?"}}, None, 0.0
        return OK, {"result": result, EXTRA_FIELD: "?"}, None, 0.0
    text = json.dumps({"result": result}, ensure_ascii=False)
    return OK, None, text[: max(1, len(text) // 2)], 0.0


def _base_answer(world: dict, tool: str, arguments: dict) -> tuple[int, Any, int | None]:
    """(status, body, recording index) before any fault."""
    index = recording_find(world, tool, arguments)
    if index is not None:
        return OK, {"result": world["recordings"][index]["result"]}, index
    default = world.get("unrecorded") or DEFAULT_UNRECORDED
    if default["kind"] == "result":
        return OK, {"result": default["result"]}, None
    message = default.get("message") or DEFAULT_UNRECORDED["message"]
    return default.get("status", 404), _error("no_recording", message), None


def world_arguments_masked(trial: EvalTrial, arguments: dict) -> dict:
    """The arguments as the example's masking writes values (golden.masking): the same
    address sent in the clear matches the pseudonym its recording holds."""
    return entry_masker(trial.entry).value(arguments)


def tool_world_call(
    trial: EvalTrial, tool: str, arguments: Any, *, transport: str, trace_id: str = ""
) -> WorldAnswer:
    """Answer one call from the trial's world (its variant's faults applied) and record it.

    Unknown tools (404) and arguments the tool's schema refuses (400, naming the field) are
    answered and recorded too: what the agent asked is never dropped.
    """
    world = trial.entry.content.get("tool_world") or {}
    names = {t["name"] for t in world_tools(world)}
    fault = None
    recording = None
    delay = 0.0
    raw = None
    if tool not in names:
        offered = ", ".join(sorted(names)) or "none"
        status, body = 404, _error("unknown_tool", f"No tool named {tool!r}; offered: {offered}.")
    elif problem := _arguments_problem(world, tool, arguments):
        status, body = 400, _error("invalid_arguments", problem[1], field=problem[0])
    else:
        # Recordings and faults were masked when the example was written: the arguments are
        # masked alike before they are matched (and before they are stored).
        arguments = world_arguments_masked(trial, arguments)
        status, body, recording = _base_answer(world, tool, arguments)
    with transaction.atomic():
        locked = EvalTrial.objects.select_for_update().only("pk").get(pk=trial.pk)
        calls = ToolWorldCall.objects.filter(trial=locked)
        sequence = calls.count() + 1
        if tool in names and status != 400:
            nth = calls.filter(tool=tool).exclude(status=400).count() + 1
            variant = world_variant(world, trial.variant) or {"faults": []}
            sensitive = world_case_sensitive(world, tool, arguments)
            fired = next(
                (f for f in variant["faults"] if _fault_fires(f, tool, nth, arguments, sensitive)),
                None,
            )
            if fired is not None:
                fault = {"variant": trial.variant, **fired}
                status, body, raw, delay = _faulted(fired, status, body)
        call = ToolWorldCall.objects.create(
            trial_id=trial.pk,
            sequence=sequence,
            tool=tool[:200],
            arguments=arguments,
            status=status,
            returned=raw if raw is not None else body,
            recording=recording,
            fault=fault,
            transport=transport,
            trace_id=trace_id[:32],
        )
    return WorldAnswer(status=status, body=body, raw=raw, delay_seconds=delay, call=call)
