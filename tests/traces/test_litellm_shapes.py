"""LiteLLM's otel callback shapes the recorded runs (tests/conformance/test_recorded_litellm.py)
do not send: a reply with two tool calls, a reply with no output messages, a tool message in
GenAI parts."""

import json

from traces.ingest.conventions import span_content_from
from traces.messages import messages_read

LOOKUP = {"order_id": "R-1"}
REFUND = {"order_id": "R-1", "amount": 5}


def test_two_flattened_calls_join_the_reply_that_lists_none():
    # LiteLLM writes a reply's calls by call index under `gen_ai.completion.N.function_call`
    attributes = {
        "gen_ai.output.messages": json.dumps(
            [{"role": "assistant", "parts": [], "finish_reason": "tool_calls"}]
        ),
        "gen_ai.completion.0.function_call.name": "lookup_order",
        "gen_ai.completion.0.function_call.arguments": json.dumps(LOOKUP),
        "gen_ai.completion.1.function_call.name": "refund",
        "gen_ai.completion.1.function_call.arguments": json.dumps(REFUND),
    }
    _, output = span_content_from(attributes)
    (reply,) = messages_read(output)
    assert [(call.name, call.arguments) for call in reply.tool_calls] == [
        ("lookup_order", LOOKUP),
        ("refund", REFUND),
    ]


def test_flattened_calls_are_the_reply_without_output_messages():
    attributes = {
        "gen_ai.completion.0.function_call.name": "lookup_order",
        "gen_ai.completion.0.function_call.arguments": json.dumps(LOOKUP),
    }
    _, output = span_content_from(attributes)
    (reply,) = messages_read(output)
    assert (reply.role, [call.name for call in reply.tool_calls]) == ("assistant", ["lookup_order"])


def test_a_reply_that_lists_its_calls_keeps_them():
    # the output messages name the call (with its id): the flattened copy adds nothing
    message = {
        "role": "assistant",
        "parts": [{"type": "tool_call", "id": "c1", "name": "lookup_order", "arguments": LOOKUP}],
    }
    attributes = {
        "gen_ai.output.messages": json.dumps([message]),
        "gen_ai.completion.0.function_call.name": "lookup_order",
        "gen_ai.completion.0.function_call.arguments": json.dumps(LOOKUP),
    }
    _, output = span_content_from(attributes)
    (reply,) = messages_read(output)
    assert [(call.id, call.name) for call in reply.tool_calls] == [("c1", "lookup_order")]


def test_a_tool_message_in_parts_is_its_result():
    parts = [{"type": "text", "content": "Error: down"}]
    (message,) = messages_read([{"role": "tool", "parts": parts, "tool_call_id": "c1"}])
    assert [(r.id, r.content) for r in message.tool_results] == [("c1", "Error: down")]
    assert message.text == ""
