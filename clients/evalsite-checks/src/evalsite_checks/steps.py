"""Tool calls as plain steps, the shape every trajectory check reads, and what is read of them."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import orjson

# Status of a call the agent is about to make (a guardrail check), never stored.
PENDING = "pending"


@dataclass
class ToolStep:
    """One tool call of a trajectory, in the order the agent made it."""

    tool: str
    inputs: Any
    output: Any = None
    # None for a call not made yet, whose result nobody knows.
    failed: bool | None = False
    span_id: str = ""
    span_pk: int | None = None
    component: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def call_key(self) -> str:
        """Tool name plus canonical arguments: equal keys mean identical calls."""
        return f"{self.tool}:{canonical_json(self.inputs)}"

    @property
    def loose_call_key(self) -> str:
        """Tool name plus arguments read loosely: case, spacing, punctuation and number
        spelling aside, equal keys mean near-identical calls ("Paris" and " paris.")."""
        return f"{self.tool}:{canonical_json(_loosened(self.inputs))}"


_NOT_WORD = re.compile(r"[^0-9a-z]+")


def _loosened(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k).lower(): _loosened(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_loosened(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return f"{float(value):g}"
    text = str(value).strip().lower()
    try:
        return f"{float(text.replace(',', '')):g}"
    except ValueError:
        return _NOT_WORD.sub("", text)


def canonical_json(value: Any) -> str:
    """Sorted compact JSON with text left unescaped, so what a tool said is searched as written.
    The guardrail check writes a hundred of these per request; orjson is twenty times faster."""
    try:
        return orjson.dumps(value, option=CANONICAL_OPTIONS, default=str).decode()
    except orjson.JSONEncodeError:
        # Integers past 64 bits, which orjson refuses.
        return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


CANONICAL_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def leaf_values(value: Any, key: str = ""):
    """Yield (key, scalar) for every scalar inside nested dicts and lists."""
    if isinstance(value, dict):
        for child_key, child in value.items():
            yield from leaf_values(child, str(child_key))
    elif isinstance(value, (list, tuple)):
        for child in value:
            yield from leaf_values(child, key)
    elif value is not None:
        yield key, value


def is_empty_result(output: Any) -> bool:
    """An output that carries nothing: None, "", [], {}, or a dict whose values are all empty."""
    if output is None:
        return True
    if isinstance(output, str):
        return not output.strip() or output.strip().lower() in {"null", "none", "[]", "{}"}
    if isinstance(output, (list, tuple)):
        return len(output) == 0
    if isinstance(output, dict):
        if not output:
            return True
        if "error" in output and output["error"]:
            return True
        values = [v for v in output.values() if not isinstance(v, bool)]
        return bool(values) and all(is_empty_result(v) for v in values)
    return False


def attempt_groups(steps: list[ToolStep]) -> list[list[ToolStep]]:
    """Calls grouped into attempts: a failed call and the next call of the same tool are one
    group, so a retry with corrected arguments is what gets scored, not the failed try.

    Groups come in the order of their last attempt, which is where the call took effect.
    """
    groups: list[list[ToolStep]] = []
    open_by_tool: dict[str, list[ToolStep]] = {}
    for step in steps:
        group = open_by_tool.pop(step.tool, None)
        if group is None:
            group = []
            groups.append(group)
        group.append(step)
        if step.failed:
            open_by_tool[step.tool] = group
    position = {id(step): index for index, step in enumerate(steps)}
    return sorted(groups, key=lambda g: position[id(g[-1])])


def last_attempts(steps: list[ToolStep]) -> list[ToolStep]:
    """The call each attempt group is scored by, in the order they took effect."""
    return [group[-1] for group in attempt_groups(steps)]


def declares_output(definition: dict | None) -> bool:
    """Whether a tool definition promises a result (an output schema or a described return)."""
    definition = definition or {}
    keys = ("outputSchema", "output_schema", "returns", "output", "response_schema")
    return any(definition.get(key) for key in keys)
