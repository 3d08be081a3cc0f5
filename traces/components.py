"""The one naming scheme for components: `agent:<name>` and `tool:<name>`.

A model call (or any other span) belongs to the agent that made it, so accuracy and failure
charts count agents and tools, never a model call of its own.
"""

from traces.models import SpanKind

AGENT_PREFIX = "agent:"
TOOL_PREFIX = "tool:"


def component_for(kind: str, name: str, tool_name: str, parent_component: str) -> str:
    """The component of one span, given the component of its parent ("" when unknown)."""
    if kind == SpanKind.TOOL:
        return f"{TOOL_PREFIX}{tool_name or name}"[:200]
    if kind == SpanKind.AGENT:
        return f"{AGENT_PREFIX}{name}"[:200]
    return parent_component if parent_component.startswith(AGENT_PREFIX) else ""


def records_components_assign(records) -> None:
    """Set each ingest record's component, parents first; a parent outside the batch counts
    as unknown (scoring attributes such spans later from the stored tree)."""
    by_id = {(r.trace_external_id, r.span_id): r for r in records}
    done: dict[tuple, str] = {}
    for record in records:
        chain, key = [], (record.trace_external_id, record.span_id)
        # Walk up to the first parent already named; the seen-set cuts a cyclic chain.
        while key in by_id and key not in done and key not in chain:
            chain.append(key)
            parent = by_id[key]
            key = (parent.trace_external_id, parent.parent_span_id)
        parent_component = done.get(key, "")
        for key in reversed(chain):
            span = by_id[key]
            # Ingest leaves an agent's declared name (gen_ai.agent.name) in `component`.
            name = (span.component or span.name) if span.kind == SpanKind.AGENT else span.name
            parent_component = component_for(span.kind, name, span.tool_name, parent_component)
            done[key] = parent_component
    for record in records:
        record.component = done[(record.trace_external_id, record.span_id)]
