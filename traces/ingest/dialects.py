"""Framework habits that need more than one span to read right, resolved over a batch."""

from __future__ import annotations

from traces.ingest.records import SpanRecord
from traces.models import SpanKind

_TOOL = SpanKind.TOOL  # read once: a metaclass attribute lookup, and this runs a span
# A one-argument call's value as LangChain hands it to a tool's callbacks: text or a number.
_BARE_VALUES = frozenset((str, int, float, bool))


def langgraph_tool_calls_resolve(records: list[SpanRecord]) -> None:
    """A LangGraph tool span records a one-argument call as the bare value; the tool node above
    it names the call: in Python its input is `tool_call_with_context` (the call itself), in JS
    the messages state (the last AI message's calls). The node gives name-matched arguments and
    the call id, in place. A tool whose node is in another request keeps what it was sent. One
    pass over the batch finds both nodes and the bare tool inputs."""
    calls, states, bare = {}, {}, []
    for record in records:
        given = record.input
        if type(given) is dict:
            if given.get("__type") == "tool_call_with_context":
                call = given.get("tool_call")
                if isinstance(call, dict):
                    calls[(record.trace_external_id, record.span_id)] = call
            elif "messages" in given:
                states[(record.trace_external_id, record.span_id)] = given
        elif type(given) in _BARE_VALUES and record.kind == _TOOL:
            bare.append(record)
    if calls:
        _named_from_tool_call(records, calls)
    if bare and states:
        _named_from_messages_state(bare, states)


def _named_from_tool_call(records: list[SpanRecord], calls: dict) -> None:
    for record in records:
        call = calls.get((record.trace_external_id, record.parent_span_id))
        if record.kind != _TOOL or call is None or call.get("name") != record.tool_name:
            continue
        if isinstance(call.get("args"), dict):
            record.input = call["args"]
        if call.get("id") and not record.tool_call_id:
            record.tool_call_id = str(call["id"])[:200]


def _named_from_messages_state(bare: list[SpanRecord], states: dict) -> None:
    """LangChain JS: the last AI message's call of the tool with that one value."""
    for record in bare:
        for call in _last_decided_calls(
            states.get((record.trace_external_id, record.parent_span_id))
        ):
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
