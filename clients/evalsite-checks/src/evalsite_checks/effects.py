"""Which tools read and which write, as far as a tool's definition and name tell.

The server's tool catalogue (metrics/effects.py) starts every tool at this default and keeps a
curator's choice over it; the state matcher compares writes and lets reads vary.
"""

from __future__ import annotations

import re

# The values of metrics.models.ToolEffect.Effect, which stores them.
READ, WRITE = "read", "write"
READ_VERBS = {
    "get", "list", "search", "find", "lookup", "look", "fetch", "read", "view", "show",
    "query", "check", "calculate", "calc", "compute", "think", "describe", "count", "verify",
    "validate", "retrieve", "browse", "inspect", "estimate", "quote", "preview",
}  # fmt: skip
WRITE_VERBS = {
    "create", "update", "cancel", "book", "send", "transfer", "delete", "remove", "add",
    "modify", "set", "refund", "pay", "charge", "change", "exchange", "return", "issue",
    "submit", "post", "put", "insert", "reserve", "place", "approve", "close", "open",
    "write", "save", "assign", "apply", "edit", "upsert", "register", "escalate", "notify",
}  # fmt: skip


def _name_words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w for w in re.split(r"[^a-zA-Z0-9]+", spaced.lower()) if w]


def tool_effect_default(name: str, definition: dict | None = None) -> str:
    """Read or write from the definition's own hints, else from the verb in the tool's name.

    An explicit `effect`, or MCP's `readOnlyHint`/`destructiveHint`, wins. A name with no known
    verb counts as a write: an unknown tool is checked strictly until a curator says otherwise.
    """
    definition = definition or {}
    if definition.get("effect") in (READ, WRITE):
        return definition["effect"]
    hints = definition.get("annotations") if isinstance(definition.get("annotations"), dict) else {}
    if hints.get("readOnlyHint") is True:
        return READ
    if hints.get("destructiveHint") is True or hints.get("readOnlyHint") is False:
        return WRITE
    for word in _name_words(name):
        if word in WRITE_VERBS:
            return WRITE
        if word in READ_VERBS:
            return READ
    return WRITE


def tool_definitions(context: dict | None) -> dict[str, dict]:
    """Tool definitions by name from a trace or example context's `available_tools`."""
    found: dict[str, dict] = {}
    for tool in (context or {}).get("available_tools") or []:
        if isinstance(tool, dict) and isinstance(tool.get("name"), str):
            found[tool["name"]] = tool
        elif isinstance(tool, dict) and isinstance(tool.get("function"), dict):
            # OpenAI's {"type": "function", "function": {...}} shape.
            function = tool["function"]
            if isinstance(function.get("name"), str):
                found[function["name"]] = function
    return found
