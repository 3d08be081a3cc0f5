"""The tools a trace's agent was offered, read into one shape for the trace page.

Forms read: OpenAI chat (`{"type": "function", "function": {...}}`), OpenAI responses and
OpenTelemetry GenAI `gen_ai.tool.definitions` (`{"type", "name", "parameters"}`), Anthropic
(`input_schema`), MCP (`inputSchema`), OpenInference (`{"tool": {"json_schema": "..."}}`, a
JSON string), OpenLLMetry (`{name, description, parameters}`), JSON text of any of these, and
bare names. Ingest adds the tools a trace's model calls were offered to its context's
`available_tools` (tools_added).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from core.json_text import json_text_decoded

# The context key listing a trace's tools: sent in a span tree or transcript, or added at ingest.
AVAILABLE_TOOLS = "available_tools"
SCHEMA_KEYS = ("parameters", "input_schema", "inputSchema", "json_schema", "schema")
DESCRIPTION_CHARS = 300


@dataclass(frozen=True)
class ToolParameter:
    name: str
    type: str = ""
    required: bool = False
    description: str = ""


@dataclass(frozen=True)
class ToolOffered:
    name: str
    description: str = ""
    parameters: list[ToolParameter] = field(default_factory=list)


def _type_of(schema) -> str:
    if not isinstance(schema, dict):
        return ""
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = " | ".join(str(k) for k in kind)
    if kind == "array" and isinstance(schema.get("items"), dict):
        inner = _type_of(schema["items"])
        return f"array of {inner}" if inner else "array"
    if isinstance(schema.get("enum"), list):
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"][:8])
    text = str(kind or "")
    if schema.get("format"):
        text = f"{text} ({schema['format']})" if text else str(schema["format"])
    return text


def _short(text) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= DESCRIPTION_CHARS else text[: DESCRIPTION_CHARS - 1] + "…"


def _parameters(schema) -> list[ToolParameter]:
    schema = json_text_decoded(schema)
    if not isinstance(schema, dict):
        return []
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return []
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    listed = [
        ToolParameter(
            name=str(name),
            type=_type_of(spec),
            required=name in required,
            description=_short(spec.get("description")) if isinstance(spec, dict) else "",
        )
        for name, spec in properties.items()
    ]
    # Required first: what a call cannot leave out (PostgreSQL keeps no key order anyway).
    return sorted(listed, key=lambda parameter: not parameter.required)


def _definition(raw) -> dict | None:
    """The dict holding a tool's name, unwrapped from the envelope its form puts around it."""
    raw = json_text_decoded(raw)
    if isinstance(raw, str) and raw.strip():
        return {"name": raw.strip()}
    if not isinstance(raw, dict):
        return None
    for envelope in ("function", "tool"):
        inner = json_text_decoded(raw.get(envelope))
        if isinstance(inner, dict) and not isinstance(raw.get("name"), str):
            if isinstance(inner.get("json_schema"), str | dict) and "name" not in inner:
                return _definition(inner["json_schema"])  # OpenInference
            return inner
    return raw if isinstance(raw.get("name"), str) else None


def tools_offered(value) -> list[ToolOffered]:
    """Each tool the value lists, with its description and parameters; [] when none reads."""
    value = json_text_decoded(value)
    if isinstance(value, dict):
        value = value.get("tools", [value])
    if not isinstance(value, list):
        return []
    tools = []
    for raw in value:
        definition = _definition(raw)
        if definition is None:
            continue
        schema = next((definition[k] for k in SCHEMA_KEYS if definition.get(k)), None)
        tools.append(
            ToolOffered(
                name=str(definition["name"]),
                description=_short(definition.get("description")),
                parameters=_parameters(schema),
            )
        )
    return tools


def tools_added(listed, offered: list) -> list | None:
    """`listed` (a context's available_tools) with each tool of `offered` whose name it lacks,
    unwrapped from its envelope but otherwise as sent (readers of effects and prerequisites
    look at its other keys); None when `offered` adds none."""
    listed = list(listed) if isinstance(listed, list) else []
    names = {tool.name for tool in tools_offered(listed)}
    size = len(listed)
    for raw in offered:
        definition = _definition(raw)
        if definition is not None and str(definition["name"]) not in names:
            names.add(str(definition["name"]))
            listed.append(definition)
    return listed if len(listed) > size else None
