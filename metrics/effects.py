"""The tool catalogue of a project: which tools read and which write.

Every tool the agent is given (`available_tools`) or calls gets a row the first time it is
seen, with a default from its definition and name; a curator's choice is never overwritten.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from evalsite_checks.effects import READ, WRITE, tool_effect_default

from core.errors import ApplicationError
from metrics.models import ToolEffect
from metrics.signals import tool_effect_changed
from traces.models import Project


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
