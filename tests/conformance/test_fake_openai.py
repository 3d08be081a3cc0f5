"""The fake server plays the support script through the real openai client."""

import json

import openai

from tests.conformance import support_task
from tests.conformance.fake_openai import FakeOpenAI


def test_script_calls_lookup_then_refund_with_the_looked_up_amount_then_answers():
    with FakeOpenAI() as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="test")
        messages = [{"role": "user", "content": support_task.TASK}]
        calls = []
        for _ in range(3):
            reply = client.chat.completions.create(model="gpt-4o-mini", messages=messages)
            message = reply.choices[0].message
            assert reply.usage.prompt_tokens == 120
            if not message.tool_calls:
                break
            call = message.tool_calls[0]
            arguments = json.loads(call.function.arguments)
            calls.append((call.function.name, arguments))
            messages.append(message.model_dump(exclude_none=True))
            result = support_task.TOOLS[call.function.name](**arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    assert calls == [
        ("lookup_order", {"order_id": "R-7731"}),
        ("refund", {"order_id": "R-7731", "amount": 42.5}),
    ]
    assert message.content == support_task.FINAL_ANSWER


def test_a_tool_offered_under_a_qualified_name_is_called_by_it():
    from tests.conformance.fake_openai import next_reply

    offered = ("SupportPlugin-lookup_order", "SupportPlugin-refund")
    first = next_reply([{"role": "user", "content": support_task.TASK}], offered)
    assert first["tool_calls"][0]["function"]["name"] == "SupportPlugin-lookup_order"
    order = support_task.lookup_order(support_task.ORDER_ID)
    second = next_reply([{"role": "tool", "content": order}], offered)
    assert second["tool_calls"][0]["function"]["name"] == "SupportPlugin-refund"
    # two tools qualifying the name: the script's own name, not a guess
    twice = ("A-lookup_order", "B-lookup_order")
    assert next_reply([], twice)["tool_calls"][0]["function"]["name"] == "lookup_order"
