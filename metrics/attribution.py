"""Component ids for spans, and the per-component accuracy table that scores roll up into."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from traces.components import component_for
from traces.models import Span, SpanKind, Trace

ORCHESTRATOR = "orchestrator"
WORKER = "worker agent"
TOOL = "tool"


def _agent_name(span: Span) -> str:
    attrs = span.attributes or {}
    return str(attrs.get("gen_ai.agent.name") or attrs.get("agent.name") or span.name)


def span_agent_component(span: Span, by_id: dict[str, Span]) -> str:
    """The component of the nearest agent above the span: the agent that decided to make it."""
    parent = by_id.get(span.parent_span_id)
    hops = 0
    # The hop cap guards against a cyclic parent chain.
    while parent is not None and parent.kind != SpanKind.AGENT and hops < 100:
        parent = by_id.get(parent.parent_span_id)
        hops += 1
    if parent is None:
        return ""
    return parent.component or component_for(parent.kind, _agent_name(parent), "", "")


def span_component(span: Span, by_id: dict[str, Span]) -> str:
    """`tool:<name>` for tools, `agent:<name>` for agents; other spans belong to their agent."""
    name = _agent_name(span) if span.kind == SpanKind.AGENT else span.name
    return component_for(span.kind, name, span.tool_name, span_agent_component(span, by_id))


def component_roles(spans: Iterable[Span]) -> dict[str, str]:
    """Which components orchestrate (an agent with no agent above it) and which are workers."""
    spans = list(spans)
    by_id = {s.span_id: s for s in spans}
    roles: dict[str, str] = {}
    for span in spans:
        component = span.component or span_component(span, by_id)
        if not component:
            continue
        if span.kind == SpanKind.TOOL:
            roles[component] = TOOL
            continue
        if span.kind != SpanKind.AGENT:
            continue
        parent, top = by_id.get(span.parent_span_id), True
        hops = 0
        while parent is not None and hops < 100:
            if parent.kind == SpanKind.AGENT:
                top = False
                break
            parent = by_id.get(parent.parent_span_id)
            hops += 1
        if top or roles.get(component) != ORCHESTRATOR:
            roles[component] = ORCHESTRATOR if top else WORKER
    return roles


def span_components_assign(trace: Trace) -> int:
    """Give every span of the trace its component id; spans already attributed keep theirs."""
    spans = list(trace.spans.all())
    by_id = {s.span_id: s for s in spans}
    changed = []
    for span in spans:
        if span.component:
            continue
        component = span_component(span, by_id)
        if component:
            span.component = component
            changed.append(span)
    Span.objects.bulk_update(changed, ["component"])
    return len(changed)


@dataclass
class ComponentRow:
    """One line of the per-component accuracy table."""

    component: str
    role: str = ""
    scored_steps: int = 0
    score_total: float = 0.0
    red_flags: int = 0
    flag_kinds: dict[str, int] = field(default_factory=dict)

    @property
    def accuracy(self) -> float | None:
        return self.score_total / self.scored_steps if self.scored_steps else None

    def as_dict(self) -> dict:
        return {
            "component": self.component,
            "role": self.role,
            "scored_steps": self.scored_steps,
            "accuracy": self.accuracy,
            "red_flags": self.red_flags,
            "flag_kinds": dict(self.flag_kinds),
        }


def component_accuracy_table(
    step_scores: Iterable[tuple[str, float]],
    flags: Iterable[tuple[str, str]],
    roles: dict[str, str] | None = None,
) -> list[dict]:
    """Roll (component, score) pairs and (component, flag kind) pairs into one row each.

    Rows with the lowest accuracy come first: that is where the agent fails.
    """
    rows: dict[str, ComponentRow] = defaultdict(lambda: ComponentRow(component=""))
    for component, score in step_scores:
        row = rows[component]
        row.component, row.scored_steps = component, row.scored_steps + 1
        row.score_total += float(score)
    for component, kind in flags:
        row = rows[component]
        row.component = component
        row.red_flags += 1
        row.flag_kinds[kind] = row.flag_kinds.get(kind, 0) + 1
    for component, row in rows.items():
        row.role = (roles or {}).get(component) or (
            TOOL if component.startswith("tool:") else WORKER
        )
    ordered = sorted(
        rows.values(),
        key=lambda r: (r.accuracy if r.accuracy is not None else 2.0, -r.red_flags, r.component),
    )
    return [row.as_dict() for row in ordered]
