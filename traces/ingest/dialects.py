"""Framework habits that need more than one span to read right, resolved over a batch."""

from __future__ import annotations

from traces.ingest.records import SpanRecord
from traces.models import SpanKind


def langgraph_tool_calls_resolve(records: list[SpanRecord]) -> None:
    """LangGraph's tool node span holds the whole call (`tool_call_with_context`), while the
    tool span under it records a one-argument call as the bare value: take name-matched
    arguments and the call id from the node, in place. A tool whose node is in another
    request keeps what it was sent."""
    calls = {}
    for record in records:
        given = record.input
        if isinstance(given, dict) and given.get("__type") == "tool_call_with_context":
            call = given.get("tool_call")
            if isinstance(call, dict):
                calls[(record.trace_external_id, record.span_id)] = call
    if not calls:
        return
    for record in records:
        call = calls.get((record.trace_external_id, record.parent_span_id))
        if record.kind != SpanKind.TOOL or call is None or call.get("name") != record.tool_name:
            continue
        if isinstance(call.get("args"), dict):
            record.input = call["args"]
        if call.get("id") and not record.tool_call_id:
            record.tool_call_id = str(call["id"])[:200]
