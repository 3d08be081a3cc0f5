"""Framework habits that need more than one span to read right, resolved over a batch."""

from __future__ import annotations

from traces.ingest.records import SpanRecord
from traces.models import SpanKind

_TOOL = SpanKind.TOOL  # read once: a metaclass attribute lookup, and this runs a span


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
        if record.kind != _TOOL or call is None or call.get("name") != record.tool_name:
            continue
        if isinstance(call.get("args"), dict):
            record.input = call["args"]
        if call.get("id") and not record.tool_call_id:
            record.tool_call_id = str(call["id"])[:200]


def _last_decided_calls(state) -> list[dict]:
    """The tool calls of the last AI message in a LangChain messages state (`{messages: [...]}`,
    each message as its `{lc: 1, kwargs}` serialization or plain), as `{name, args, id}`."""
    messages = state.get("messages") if isinstance(state, dict) else None
    for message in reversed(messages if isinstance(messages, list) else []):
        if not isinstance(message, dict):
            continue
        fields = message.get("kwargs") if isinstance(message.get("kwargs"), dict) else message
        calls = fields.get("tool_calls")
        if isinstance(calls, list) and calls:
            return [call for call in calls if isinstance(call, dict)]
    return []


# A one-argument call's value as LangChain JS hands it over: text or a number.
_BARE_VALUES = frozenset((str, int, float, bool))


def langchain_bare_tool_inputs_resolve(records: list[SpanRecord]) -> None:
    """LangChain JS hands a tool's callbacks a one-argument call as the bare value; under
    LangGraph's tool node, whose input is the messages state, the last AI message's call of that
    tool with that one value gives the named arguments and the call id, in place."""
    bare = [
        record
        for record in records
        if type(record.input) in _BARE_VALUES and record.kind == _TOOL  # types first: cheap
    ]
    if not bare:
        return
    parents = {(record.trace_external_id, record.span_id): record for record in records}
    for record in bare:
        parent = parents.get((record.trace_external_id, record.parent_span_id))
        if parent is None:
            continue
        for call in _last_decided_calls(parent.input):
            args = call.get("args")
            if (
                call.get("name") == record.tool_name
                and isinstance(args, dict)
                and len(args) == 1
                and str(next(iter(args.values()))) == str(record.input)
            ):
                record.input = args
                if call.get("id") and not record.tool_call_id:
                    record.tool_call_id = str(call["id"])[:200]
                break
