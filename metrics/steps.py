"""A trace's tool calls as plain steps (evalsite_checks.steps), read from its spans: its tool
spans, or, where no tool was traced (a plain SDK loop under a provider instrumentation), the
calls its model calls decided, with the results the later calls were handed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from evalsite_checks.steps import PENDING, ToolStep

from traces.ingest.failures import DEFAULT_FAILURE_RULE, FailureRule, result_failed
from traces.messages import ToolCall, ToolResult, messages_read
from traces.models import Span, SpanKind, SpanStatus, Trace
from traces.reading import tool_result_key
from traces.untold_replies import replies_untold, reply_missing


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
    parent_span_id: str
    name: str
    kind: str
    input: Any
    output: Any
    attributes: dict
    status: str
    tool_name: str
    tool_call_id: str
    component: str


def span_pk(span: SpanFacts) -> int | None:
    """The stored row's key; None for a span parsed in memory."""
    return getattr(span, "pk", None)


def trace_spans(trace: Trace) -> list[Span]:
    """All spans of a trace in the order they happened."""
    return list(trace.spans.order_by("position", "started_at", "pk"))


def tool_steps_from_spans(
    spans: Sequence[SpanFacts], rule: FailureRule = DEFAULT_FAILURE_RULE
) -> list[ToolStep]:
    """The tool calls among `spans`, keeping span ids so flags and scores can name them. A tool
    span that records only its call id (AutoGen's own `execute_tool`) reads the arguments the
    call was decided with and the result handed back for it. A result handed back is failed as
    the project's `rule` reads it (a tool span's own status was marked by it at ingest)."""
    told: dict[str, tuple[ToolCall, ToolResult | None]] | None = None
    steps = []
    said_ok = []  # (step, call id) of the calls whose span says they succeeded
    for span in spans:
        if span.kind != SpanKind.TOOL:
            continue
        inputs, output = span.input, span.output
        failed = None if span.status == PENDING else span.status == SpanStatus.ERROR
        if inputs is None and output is None and span.tool_call_id:
            if told is None:
                # the first call under an id, as a retry may reuse one
                told = {call.id: (call, res) for _, call, res in reversed(calls_told(spans))}
            call, result = told.get(span.tool_call_id, (None, None))
            inputs = call.arguments if call else None
            if result is not None:
                output, failed = result.content, failed or result_failed(result, rule)
        step = ToolStep(
            tool=span.tool_name or span.name,
            inputs=inputs if inputs is not None else {},
            output=output,
            failed=failed,
            span_id=span.span_id,
            span_pk=span_pk(span),
            component=span.component,
        )
        steps.append(step)
        if failed is False:
            said_ok.append((step, span.tool_call_id))
    if said_ok:
        flagged_ids, flagged_results = results_flagged_failed(spans)
        for step, call_id in said_ok:
            if call_id:
                step.failed = call_id in flagged_ids
            else:  # a span that names no call: the result it recorded is what was handed back
                step.failed = tool_result_key(step.output) in flagged_results
    return steps or tool_steps_from_messages(spans, rule)


def results_flagged_failed(spans: Sequence[SpanFacts]) -> tuple[set[str], set[str]]:
    """The call ids, and the results (tool_result_key), that the latest model call was handed
    flagged as errors: a tool span may stay OK when its tool raised (OpenInference's AgentChat
    instrumentation) while the model is told `is_error`. The latest call's history holds every
    earlier result wherever a framework resends it: one value read a trace."""
    latest = next((s for s in reversed(spans) if s.kind == SpanKind.LLM and s.input), None)
    flagged = [
        result
        for message in (messages_read(latest.input) if latest else None) or []
        for result in message.tool_results
        if result.is_error
    ]
    return {r.id for r in flagged if r.id}, {tool_result_key(r.content) for r in flagged}


def tool_steps_from_messages(
    spans: Sequence[SpanFacts],
    rule: FailureRule = DEFAULT_FAILURE_RULE,
    told: list[tuple[SpanFacts, ToolCall, ToolResult | None]] | None = None,
) -> list[ToolStep]:
    """The calls the model calls among `spans` decided (calls_told, or `told` when the caller
    read it already), one step each in that order, named by the model span that decided it,
    failed as the project's `rule` reads its result."""
    return [
        ToolStep(
            tool=call.name,
            inputs=call.arguments if call.arguments is not None else {},
            output=result.content if result else None,
            failed=bool(result and result_failed(result, rule)),
            span_id=span.span_id,
            span_pk=span_pk(span),
            component=span.component,
        )
        for span, call, result in (calls_told(spans) if told is None else told)
    ]


def calls_told(spans: Sequence[SpanFacts]) -> list[tuple[SpanFacts, ToolCall, ToolResult | None]]:
    """(model span, call, result) for each call the model calls among `spans` decided, with the
    result a later call was handed under its id (the first such result for the first call, and
    so on), or else the next result handed back under an id no call has (OpenLLMetry names
    Responses API calls by item id, their results by call id). A call that recorded no reply
    decided what the next call's history holds after what it was handed (replies_untold). A
    model span with another inside it is a framework's layer over the same call: the innermost
    one is read."""
    calls = [span for span in spans if span.kind == SpanKind.LLM]
    layers = {span.parent_span_id for span in calls}
    results: dict[str, list[ToolResult]] = {}  # in the order first handed back
    decided = []
    untold: dict | None = None  # read once, when a model call recorded no reply
    for span in calls:
        handed: dict[str, list[ToolResult]] = {}
        for message in messages_read(span.input) or []:
            for result in message.tool_results:
                handed.setdefault(result.id, []).append(result)
        for call_id, given in handed.items():  # each call resends the history: the longest
            if len(given) > len(results.get(call_id, ())):
                results[call_id] = given
        if span.span_id not in layers:
            replies = None
            if reply_missing(span.output):  # its reply told by the next call's history
                untold = replies_untold(spans) if untold is None else untold
                replies = [untold[span.span_id]] if span.span_id in untold else None
            replies = replies or messages_read(span.output) or []
            decided += [(span, call) for message in replies for call in message.tool_calls]
    called = {call.id for _, call in decided}
    unclaimed = iter(
        [r for call_id, given in results.items() if call_id not in called for r in given]
    )
    taken: dict[str, int] = {}
    told = []
    for span, call in decided:
        index = taken[call.id] = taken.get(call.id, -1) + 1
        given = results.get(call.id) or ()
        told.append((span, call, given[index] if index < len(given) else next(unclaimed, None)))
    return told
