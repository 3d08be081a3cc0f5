"""A trace's tool calls as plain steps (evalsite_checks.steps), read from its spans."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from evalsite_checks.steps import PENDING, ToolStep

from traces.models import Span, SpanKind, SpanStatus, Trace


class TraceFacts(Protocol):
    """What the checks read of a trace: a stored Trace, or one parsed in memory."""

    task: str | None
    final_answer: str | None
    stop_reason: str | None
    context: dict
    attributes: dict
    root_span_id: str


class SpanFacts(Protocol):
    """What the checks read of a span: a stored Span, or an ingest SpanRecord."""

    span_id: str
    name: str
    kind: str
    input: Any
    output: Any
    attributes: dict
    status: str
    tool_name: str
    component: str


def span_pk(span: SpanFacts) -> int | None:
    """The stored row's key; None for a span parsed in memory."""
    return getattr(span, "pk", None)


def trace_spans(trace: Trace) -> list[Span]:
    """All spans of a trace in the order they happened."""
    return list(trace.spans.order_by("position", "started_at", "pk"))


def tool_steps_from_spans(spans: Sequence[SpanFacts]) -> list[ToolStep]:
    """The tool calls among `spans`, keeping span ids so flags and scores can name them."""
    steps = []
    for span in spans:
        if span.kind != SpanKind.TOOL:
            continue
        steps.append(
            ToolStep(
                tool=span.tool_name or span.name,
                inputs=span.input if span.input is not None else {},
                output=span.output,
                failed=None if span.status == PENDING else span.status == SpanStatus.ERROR,
                span_id=span.span_id,
                span_pk=span_pk(span),
                component=span.component,
            )
        )
    return steps
