"""The tool world a trace proposes: the tools it was offered and what each call returned.

Captured when a trace becomes an example (promotion, or adding it from a trace), so the agent
under test can meet the same tools and answers later. Failed calls are not recordings (a
failure is what a fault variant injects, on purpose); a tool whose name cannot be served
(a space or a slash in it) is left out, and the curator sees the world before saving.
"""

from __future__ import annotations

import json
from typing import Any

from evalsite_checks.effects import tool_definitions
from evalsite_checks.steps import ToolStep
from evalsite_checks.worlds.schema import DEFAULT_UNRECORDED, NAME

from golden.content import canonical_json
from traces.models import Trace

SCHEMA_KEYS = ("input_schema", "inputSchema", "parameters")


def _schema_of(definition: dict) -> dict:
    for key in SCHEMA_KEYS:
        schema = definition.get(key)
        if isinstance(schema, dict) and schema.get("type", "object") == "object":
            return schema
    return {"type": "object"}


def _arguments_of(step: ToolStep) -> dict | None:
    value: Any = step.inputs
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return None
    if value is None:
        return {}
    return value if isinstance(value, dict) else None


def tool_world_from_trace(trace: Trace, steps: list[ToolStep]) -> dict:
    """The world of the trace's tools: definitions from its `available_tools`, a bare entry for
    a tool it called without one, and one recording per distinct successful call (its tool
    steps, metrics.steps)."""
    definitions = tool_definitions(trace.context)
    tools: dict[str, dict] = {}
    for name, definition in definitions.items():
        if NAME.match(name):
            description = definition.get("description")
            tools[name] = {
                "name": name,
                "description": description.strip() if isinstance(description, str) else "",
                "input_schema": _schema_of(definition),
            }
    recordings = []
    seen: set[tuple[str, str]] = set()
    for step in steps:
        name = step.tool
        arguments = _arguments_of(step)
        if not NAME.match(name or "") or arguments is None:
            continue
        bare = {"name": name, "description": "", "input_schema": {"type": "object"}}
        tools.setdefault(name, bare)
        if step.failed:
            continue
        key = (name, canonical_json(arguments))
        if key in seen:
            continue
        seen.add(key)
        recordings.append({"tool": name, "arguments": arguments, "result": step.output})
    if not tools:
        return {}
    return {
        "tools": list(tools.values()),
        "recordings": recordings,
        "unrecorded": dict(DEFAULT_UNRECORDED),
        "variants": [],
    }
