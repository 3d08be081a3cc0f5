"""The one naming scheme for components: `agent:<name>` and `tool:<name>`.

A model call (or any other span) belongs to the agent that made it, so accuracy and failure
charts count agents and tools, never a model call of its own.
"""

from traces.models import SpanKind

# Read once: each SpanKind.X is a metaclass attribute lookup, and this runs for every span.
_TOOL, _AGENT = SpanKind.TOOL, SpanKind.AGENT

AGENT_PREFIX = "agent:"
TOOL_PREFIX = "tool:"


def component_for(kind: str, name: str, tool_name: str, parent_component: str) -> str:
    """The component of one span, given the component of its parent ("" when unknown)."""
    if kind == _TOOL:
        return f"{TOOL_PREFIX}{tool_name or name}"[:200]
    if kind == _AGENT:
        return f"{AGENT_PREFIX}{name}"[:200]
    return parent_component if parent_component.startswith(AGENT_PREFIX) else ""


def records_components_assign(records) -> None:
    """Set each ingest record's component, parents first; a parent outside the batch counts
    as unknown (scoring attributes such spans later from the stored tree)."""
    # By trace, then span id: a parent is always in its child's trace.
    by_trace: dict[str, dict[str, object]] = {}
    for record in records:
        by_trace.setdefault(record.trace_external_id, {})[record.span_id] = record
    done_by_trace = {}
    for trace_id, spans in by_trace.items():
        done: dict[str, str] = {}
        for span_id, record in spans.items():
            if span_id in done:
                continue
            parent = record.parent_span_id
            if parent in done or parent not in spans:
                # Most spans: the parent is named already, or is not in this batch.
                done[span_id] = _record_component(record, done.get(parent, ""))
                continue
            chain, key = [], span_id
            # Walk up to the first parent already named; the chain check cuts a cycle.
            while key in spans and key not in done and key not in chain:
                chain.append(key)
                key = spans[key].parent_span_id
            parent_component = done.get(key, "")
            for key in reversed(chain):
                parent_component = _record_component(spans[key], parent_component)
                done[key] = parent_component
        done_by_trace[trace_id] = done
    for record in records:
        record.component = done_by_trace[record.trace_external_id][record.span_id]


def _record_component(span, parent_component: str) -> str:
    # Ingest leaves an agent's declared name (gen_ai.agent.name) in `component`.
    name = (span.component or span.name) if span.kind == _AGENT else span.name
    return component_for(span.kind, name, span.tool_name, parent_component)
