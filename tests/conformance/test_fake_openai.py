"""The fake server plays the support script through the real openai client."""

import json
import re

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


def test_dspy_react_prompts_are_answered_in_dspys_fields():
    from tests.conformance.fake_openai import dspy_reply

    system = {"role": "system", "content": "Your output fields are: [[ ## next_tool_name ## ]]"}

    def asked(trajectory: str) -> list[dict]:
        user = (
            f"[[ ## question ## ]]\n{support_task.TASK}\n\n[[ ## trajectory ## ]]\n{trajectory}"
            "\n\nRespond with the corresponding output fields, starting with ..."
        )
        return [system, {"role": "user", "content": user}]

    def fields(reply: dict) -> dict:
        return {
            name: value.strip()
            for name, value in re.findall(
                r"\[\[ ## (\w+) ## \]\]\n?(.*?)(?=\[\[ ## |\Z)", reply["content"], re.S
            )
        }

    first = fields(dspy_reply(asked("")))
    assert (first["next_tool_name"], json.loads(first["next_tool_args"])) == (
        "lookup_order",
        {"order_id": "R-7731"},
    )
    order = support_task.lookup_order(support_task.ORDER_ID)
    looked_up = f"[[ ## tool_name_0 ## ]]\nlookup_order\n\n[[ ## observation_0 ## ]]\n{order}"
    second = fields(dspy_reply(asked(looked_up)))
    assert json.loads(second["next_tool_args"]) == {"order_id": "R-7731", "amount": 42.5}
    refunded = support_task.refund(support_task.ORDER_ID, 42.5)
    done = f"{looked_up}\n\n[[ ## observation_1 ## ]]\n{refunded}"
    assert fields(dspy_reply(asked(done)))["next_tool_name"] == "finish"
    # a failed lookup (ReAct's "Execution error in ...") is looked up again
    failed = "[[ ## observation_0 ## ]]\nExecution error in lookup_order: \nConnectionError: down"
    assert fields(dspy_reply(asked(failed)))["next_tool_name"] == "lookup_order"
    # the extract step, asked for no tool, gives the answer
    extract = [{"role": "system", "content": "[[ ## answer ## ]]"}, asked(done)[1]]
    assert fields(dspy_reply(extract))["answer"] == support_task.FINAL_ANSWER
