"""The tool catalogue of a project: which tools read and which write.

Every tool the agent is given (`available_tools`) or calls gets a row the first time it is
seen, with a default from its definition and name; a curator's choice is never overwritten.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from django.db import transaction

from core.errors import ApplicationError
from metrics.models import ToolEffect
from metrics.signals import tool_effect_changed
from traces.models import Project

READ, WRITE = ToolEffect.Effect.READ, ToolEffect.Effect.WRITE
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


def tool_catalogue_ensure(
    project: Project, definitions: dict[str, dict], called: Iterable[str] = ()
) -> dict[str, str]:
    """Add the tools not catalogued yet and return every known tool's effect, by name."""
    names = set(definitions) | {name for name in called if name}
    known = {e.tool: e for e in ToolEffect.objects.filter(project=project)}
    missing = [
        ToolEffect(
            project=project,
            tool=name,
            effect=tool_effect_default(name, definitions.get(name)),
            definition=definitions.get(name) or {},
        )
        for name in sorted(names - set(known))
    ]
    if missing:
        # Two scorers may catalogue the same new tool at once; the unique row settles it.
        ToolEffect.objects.bulk_create(missing, ignore_conflicts=True)
        known = {e.tool: e for e in ToolEffect.objects.filter(project=project)}
    return {tool: row.effect for tool, row in known.items()}


def tool_effect_set(*, project: Project, tool: str, effect: str, user=None) -> ToolEffect:
    """A curator's decision about a tool; audited downstream through `tool_effect_changed`."""
    if effect not in (READ, WRITE):
        raise ApplicationError("effect must be read or write.", field="effect")
    tool = (tool or "").strip()
    if not tool:
        raise ApplicationError("Name the tool.", field="tool")
    with transaction.atomic():
        row = ToolEffect.objects.select_for_update().filter(project=project, tool=tool).first()
        before = {"effect": row.effect, "source": row.source} if row else None
        if row is None:
            row = ToolEffect(project=project, tool=tool)
        row.effect, row.source = effect, ToolEffect.Source.CURATOR
        row.updated_by = user if user is not None and user.is_authenticated else None
        row.save()
        tool_effect_changed.send(sender=ToolEffect, effect=row, user=row.updated_by, before=before)
    return row
