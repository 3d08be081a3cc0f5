"""Haystack's shapes, as its tracers and OpenInference's write them: ChatMessages in each form
(to_dict parts, the older `_role`/`_content` keys, reprs read as data without running code),
component and agent step spans (2.x and 3.x). The runs they come from: tests/conformance."""

import json

import pytest

from traces.ingest.records import span_record_build
from traces.messages import messages_read, readable_text
from traces.models import SpanKind

# Haystack's ChatMessage, as its to_dict writes it (before 2.9 with underscored keys) and as
# its repr, which both its own tracer and OpenInference's write where a value is no JSON.
HAYSTACK_CALL = {"tool_name": "refund", "arguments": {"order_id": "R-1"}, "id": "c1"}
HAYSTACK_RESULT = {"result": '{"ok": 1}', "origin": HAYSTACK_CALL, "error": False}
HAYSTACK_TURNS = {
    "to_dict": [
        {"role": "user", "meta": {}, "name": None, "content": [{"text": "Refund R-1"}]},
        {"role": "assistant", "meta": {}, "content": [{"tool_call": HAYSTACK_CALL}]},
        {
            "role": "tool",
            "content": [{"tool_call_result": HAYSTACK_RESULT}],
        },
    ],
    "underscored": [
        {"_role": "user", "_content": [{"text": "Refund R-1"}], "_name": None, "_meta": {}},
        {"_role": "assistant", "_content": [{"tool_call": HAYSTACK_CALL}]},
        {
            "_role": "tool",
            "_content": [{"tool_call_result": HAYSTACK_RESULT}],
        },
    ],
    "repr": [
        "ChatMessage(_role=<ChatRole.USER: 'user'>, _content=[TextContent(text='Refund R-1')], "
        "_name=None, _meta={})",
        "ChatMessage(_role=<ChatRole.ASSISTANT: 'assistant'>, _content=[ToolCall(tool_name="
        "'refund', arguments={'order_id': 'R-1'}, id='c1', extra=None)], _name=None, _meta={})",
        "ChatMessage(_role=<ChatRole.TOOL: 'tool'>, _content=[ToolCallResult(result='{\"ok\": "
        "1}', origin=ToolCall(tool_name='refund', arguments={'order_id': 'R-1'}, id='c1', "
        "extra=None), error=False)], _name=None, _meta={})",
    ],
}


@pytest.mark.parametrize("form", HAYSTACK_TURNS)
def test_haystack_chat_messages_read_in_each_form_they_are_written(form):
    user, assistant, tool = messages_read({"messages": HAYSTACK_TURNS[form]})
    assert (user.role, user.text) == ("user", "Refund R-1")
    assert [(c.id, c.name, c.arguments) for c in assistant.tool_calls] == [
        ("c1", "refund", {"order_id": "R-1"})
    ]
    (result,) = tool.tool_results
    assert (result.id, result.content, result.is_error) == ("c1", {"ok": 1}, False)
    assert (result.origin.name, result.origin.arguments) == ("refund", {"order_id": "R-1"})
    # a generator's `replies` and a ToolInvoker's `tool_messages` are message lists too
    assert messages_read({"replies": HAYSTACK_TURNS[form][1:2]})[0].tool_calls[0].name == "refund"
    assert messages_read({"tool_messages": HAYSTACK_TURNS[form][2:]})[0].tool_results


@pytest.mark.parametrize(
    ("text", "data"),
    [
        (
            "{'state': <app.State object at 0x7f01>, 'f': <function run.<locals>.f at 0x7f02>}",
            {"state": "<app.State object at 0x7f01>", "f": "<function run.<locals>.f at 0x7f02>"},
        ),
        # a quoted `<` or `'` is text, not a repr
        ('[Part(text="it\'s <b>", n=-1.5)]', [{"text": "it's <b>", "n": -1.5, "type": "part"}]),
        ("Role(kind=<Kind.A: 2>)", {"kind": 2, "type": "role"}),
    ],
)
def test_a_keyword_repr_reads_as_data(text, data):
    from traces.messages import keyword_repr_read

    assert keyword_repr_read(text) == data


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('true')",  # a call with positional arguments: no repr
        "Part(text=open('x').read())",
        "Part(text='cut short",
        "<a <b>",
        "plain words",
    ],
)
def test_what_is_no_keyword_repr_stays_its_text(text):
    from traces.messages import keyword_repr_read

    assert keyword_repr_read(text) == text


def _haystack_span(name: str, attributes: dict):
    return span_record_build(
        trace_external_id="t", span_id=name, parent_span_id="p", name=name, attributes=attributes
    )


HAYSTACK_TOOL = (
    "Tool(name='refund', description='Refund an order.', parameters={'type': 'object', "
    "'properties': {'order_id': {'type': 'string'}}}, function=<function refund at 0x7f01>)"
)


def test_haystack_tracer_component_spans_read_as_model_calls_and_tool_calls():
    usage = {"prompt_tokens": 120, "completion_tokens": 30}
    reply = {"role": "assistant", "meta": {"model": "gpt-4o-mini", "usage": usage}}
    reply["content"] = [{"tool_call": HAYSTACK_CALL}]
    generator = _haystack_span(
        "haystack.component.run",
        {
            "haystack.component.type": "OpenAIChatGenerator",
            # its inputs hold Tools, which are no JSON: Haystack writes the repr
            "haystack.component.input": "{'messages': ["
            + HAYSTACK_TURNS["repr"][0]
            + "], 'tools': ["
            + HAYSTACK_TOOL
            + "]}",
            "haystack.component.output": json.dumps({"replies": [reply]}),
        },
    )
    assert generator.kind == SpanKind.LLM
    assert (generator.model, generator.input_tokens, generator.output_tokens) == (
        "gpt-4o-mini",
        120,
        30,
    )
    assert messages_read(generator.input)[0].text == "Refund R-1"
    # the tools it was given, as their definitions
    assert generator.trace_fields["available_tools"] == [
        {
            "name": "refund",
            "description": "Refund an order.",
            "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}},
        }
    ]
    for error in (False, True):
        result = {"result": "down" if error else '{"ok": 1}', "origin": HAYSTACK_CALL}
        output = {"tool_messages": [{"role": "tool", "content": [{"tool_call_result": result}]}]}
        result["error"] = error
        invoker = _haystack_span(
            "haystack.component.run",
            {
                "haystack.component.type": "ToolInvoker",
                "haystack.component.output": json.dumps({**output, "state": {"data": {}}}),
            },
        )
        assert (invoker.kind, invoker.tool_name, invoker.tool_call_id) == (
            SpanKind.TOOL,
            "refund",
            "c1",
        )
        assert invoker.input == {"order_id": "R-1"}
        assert invoker.output == ({"error": "down"} if error else {"ok": 1})
        assert (invoker.status, invoker.error_message) == (
            ("error", "down") if error else ("ok", "")
        )


def test_a_tool_invoker_that_ran_several_calls_stays_one_step_of_messages():
    second = {**HAYSTACK_CALL, "id": "c2"}
    results = [
        {"tool_call_result": {"result": "a", "origin": call, "error": False}}
        for call in (HAYSTACK_CALL, second)
    ]
    invoker = _haystack_span(
        "ToolInvoker.run",
        {
            "openinference.span.kind": "CHAIN",
            "output.value": json.dumps({"tool_messages": [{"role": "tool", "content": results}]}),
        },
    )
    assert invoker.kind == SpanKind.CUSTOM and invoker.tool_name == ""
    assert [r.id for r in messages_read(invoker.output)[0].tool_results] == ["c1", "c2"]


def test_haystack_agent_spans_and_the_agents_tools():
    agent = _haystack_span(
        "haystack.agent.run",
        {
            "haystack.agent.max_steps": 100,
            "haystack.agent.tools": "[" + HAYSTACK_TOOL + "]",
            "haystack.agent.input": json.dumps({"messages": HAYSTACK_TURNS["to_dict"][:1]}),
        },
    )
    assert agent.kind == SpanKind.AGENT
    assert readable_text(agent.input, role="user") == "Refund R-1"
    assert [tool["name"] for tool in agent.trace_fields["available_tools"]] == ["refund"]
    assert "function" not in agent.trace_fields["available_tools"][0]
    # an Agent component in a pipeline, by its class
    component = _haystack_span("haystack.component.run", {"haystack.component.type": "Agent"})
    assert component.kind == SpanKind.AGENT


def test_haystack3_agent_step_spans_read_as_one_model_call_and_one_tool_call_each():
    usage = {"prompt_tokens": 120, "completion_tokens": 30}
    reply = {"role": "assistant", "meta": {"model": "gpt-4o-mini", "usage": usage}}
    reply["content"] = [{"tool_call": HAYSTACK_CALL}]
    llm = _haystack_span(
        "haystack.agent.step.llm",
        {
            # the generator's arguments hold Tools, which are no JSON: written as their repr
            "haystack.agent.step.llm.input": "{'messages': ["
            + HAYSTACK_TURNS["repr"][0]
            + "], 'tools': ["
            + HAYSTACK_TOOL
            + "]}",
            "haystack.agent.step.llm.output": json.dumps({"replies": [reply]}),
        },
    )
    assert llm.kind == SpanKind.LLM
    assert (llm.model, llm.input_tokens, llm.output_tokens) == ("gpt-4o-mini", 120, 30)
    assert messages_read(llm.input)[0].text == "Refund R-1"
    assert [tool["name"] for tool in llm.trace_fields["available_tools"]] == ["refund"]
    assert messages_read(llm.output)[0].tool_calls[0].name == "refund"
    tool = _haystack_span(
        "haystack.agent.step.tool",
        {
            "haystack.tool.name": "refund",
            "haystack.tool.description": "Refund an order.",
            "haystack.agent.step.tool.input": json.dumps({"order_id": "R-1"}),
            "haystack.agent.step.tool.output": '{"ok": 1}',
        },
    )
    assert (tool.kind, tool.tool_name, tool.status) == (SpanKind.TOOL, "refund", "ok")
    assert (tool.input, tool.output) == ({"order_id": "R-1"}, {"ok": 1})


def test_haystack3_failed_tool_call_is_marked_with_or_without_its_traced_result():
    failed = _haystack_span(
        "haystack.agent.step.tool",
        {
            "haystack.tool.name": "refund",
            "haystack.agent.step.tool.input": json.dumps({"order_id": "R-1"}),
            "haystack.tool.error": True,
            "haystack.agent.step.tool.output": json.dumps({"error": "Error: service down"}),
        },
    )
    assert (failed.status, failed.error_message) == ("error", "Error: service down")
    # content tracing off: the name and the error flag are all the span says
    untraced = _haystack_span(
        "haystack.agent.step.tool", {"haystack.tool.name": "refund", "haystack.tool.error": True}
    )
    assert (untraced.kind, untraced.tool_name) == (SpanKind.TOOL, "refund")
    assert (untraced.status, untraced.error_message) == ("error", "tool error")
    succeeded = _haystack_span(
        "haystack.agent.step.tool", {"haystack.tool.name": "refund", "haystack.tool.error": False}
    )
    assert (succeeded.status, succeeded.error_message) == ("ok", "")
