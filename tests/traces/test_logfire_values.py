"""Logfire's former `response_data` of an Anthropic reply: call arguments written as
`{"input": {...}}` read as the arguments; any other provider's left as sent."""

import json

from traces.ingest.logfire_values import logfire_reply_read


def reply(arguments: dict) -> dict:
    call = {"id": "c1", "function": {"name": "search", "arguments": json.dumps(arguments)}}
    return {"message": {"role": "assistant", "tool_calls": [call]}, "usage": {}}


def arguments_read(value: dict, system: str) -> object:
    attributes = {"response_data": value, "gen_ai.system": system}
    read = logfire_reply_read(value, attributes)
    return read["message"]["tool_calls"][0]["function"]["arguments"]


def test_an_anthropic_calls_arguments_are_what_input_holds():
    assert arguments_read(reply({"input": {"order_id": "R-7731"}}), "anthropic") == {
        "order_id": "R-7731"
    }


def test_an_openai_tool_whose_one_parameter_is_input_keeps_it():
    sent = reply({"input": {"q": "x"}})
    assert arguments_read(sent, "openai") == json.dumps({"input": {"q": "x"}})


def test_a_reply_without_calls_is_left_as_sent():
    sent = {"message": {"role": "assistant", "content": "Done."}, "usage": {}}
    assert logfire_reply_read(sent, {"response_data": sent, "gen_ai.system": "anthropic"}) is sent
