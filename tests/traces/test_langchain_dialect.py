"""LangChain and LangGraph, in Python and in JS, as OpenInference's and OpenLLMetry's
instrumentations write them: messages in each serialized form, tool nodes and the tool spans
under them, chain values. The runs these shapes come from: tests/conformance."""

import json

import pytest

from tests.traces.test_dialects import build
from traces.ingest.dialects import langgraph_tool_calls_resolve
from traces.messages import messages_read, readable_text


def test_langchain_tool_message_and_langgraph_tool_node():
    node = build(
        {
            "openinference.span.kind": "CHAIN",
            "input.value": json.dumps(
                {
                    "__type": "tool_call_with_context",
                    "tool_call": {"name": "lookup", "args": {"order_id": "R-1"}, "id": "call_9"},
                }
            ),
        },
        name="tools",
    )
    node.span_id = "node"
    tool = build(
        {
            "openinference.span.kind": "TOOL",
            "tool.name": "lookup",
            "input.value": "R-1",
            "output.value": json.dumps(
                {"type": "tool", "data": {"content": '{"amount": 3}', "status": "success"}}
            ),
        },
        parent="node",
    )
    failed = build(
        {
            "openinference.span.kind": "TOOL",
            "tool.name": "lookup",
            "output.value": json.dumps(
                {"type": "tool", "data": {"content": "no such order", "status": "error"}}
            ),
        }
    )
    langgraph_tool_calls_resolve([node, tool])
    assert (tool.input, tool.tool_call_id, tool.output) == (
        {"order_id": "R-1"},
        "call_9",
        {"amount": 3},
    )
    assert failed.status == "error" and "no such order" in failed.error_message


@pytest.mark.parametrize(
    ("value", "role", "text"),
    [
        ({"messages": [["user", "Refund R-1"]]}, "user", "Refund R-1"),
        (
            {"messages": [{"type": "ai", "data": {"content": "Done.", "type": "ai"}}]},
            "assistant",
            "Done.",
        ),
        (
            {"generations": [[{"text": "x", "message": {"role": "assistant", "content": "Gen."}}]]},
            "assistant",
            "Gen.",
        ),
        (
            [
                {
                    "message": {
                        "role": "user",
                        "contents": [{"message_content": {"type": "text", "text": "Hi"}}],
                    }
                }
            ],
            "user",
            "Hi",
        ),
    ],
)
def test_langchain_and_openinference_message_forms(value, role, text):
    assert readable_text(value, role=role) == text


def test_openllmetry_langchain_wrappers_give_the_values_inside():
    from traces.ingest.records import chain_value, tool_arguments, tool_result

    history = {"messages": [{"role": "user", "content": "Refund R-1"}]}
    assert chain_value({"inputs": history, "tags": [], "metadata": {}, "kwargs": {}}) == history
    assert chain_value({"outputs": history, "kwargs": {"tags": []}}) == history
    assert chain_value({"inputs": 1, "other": 2}) == {"inputs": 1, "other": 2}
    wrapped_input = {"input_str": "{'id': 'R-1'}", "tags": [], "inputs": {"id": "R-1"}}
    assert tool_arguments(wrapped_input) == {"id": "R-1"}
    message = {"lc": 1, "type": "constructor", "id": ["langchain", "ToolMessage"]}
    ok = {**message, "kwargs": {"type": "tool", "content": '{"ok": 1}', "status": "success"}}
    failed = {**message, "kwargs": {"type": "tool", "content": "no such order", "status": "error"}}
    assert tool_result({"output": ok, "kwargs": {"tags": []}}) == {"ok": 1}
    assert tool_result({"output": failed, "kwargs": {}}) == {"error": "no such order"}
    assert tool_result({"output": "plain", "kwargs": {}}) == "plain"


def test_openinference_js_tool_message_output_reads_as_its_content():
    from traces.ingest.records import tool_result

    message = {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "ToolMessage"]}
    ok = {**message, "kwargs": {"status": "success", "content": '{"ok": 1}', "tool_call_id": "c"}}
    failed = {**message, "kwargs": {"status": "error", "content": "no such order"}}
    assert tool_result({"output": ok}) == {"ok": 1}
    assert tool_result({"output": failed}) == {"error": "no such order"}
    # a tool's own `{output}` return is its result as it is
    assert tool_result({"output": {"lc": 1, "kwargs": {}}}) == {"output": {"lc": 1, "kwargs": {}}}
    assert tool_result({"output": [1, 2]}) == {"output": [1, 2]}


def _tool_node(calls) -> object:
    decided = {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain_core", "messages", "AIMessage"],
        "kwargs": {"content": "", "tool_calls": calls},
    }
    state = {"messages": [{"role": "user", "content": "Refund R-1"}, decided]}
    node = build({"openinference.span.kind": "CHAIN", "input.value": json.dumps(state)})
    node.span_id = "node"
    return node


def test_a_bare_one_argument_tool_input_is_named_from_the_tool_nodes_messages_state():
    node = _tool_node(
        [
            {"name": "lookup", "args": {"order_id": "R-1"}, "id": "call_1"},
            {"name": "lookup", "args": {"order_id": "R-2"}, "id": "call_2"},
            {"name": "refund", "args": {"order_id": "R-2", "amount": 3}, "id": "call_3"},
        ]
    )

    def tool(name, value):
        attributes = {"openinference.span.kind": "TOOL", "tool.name": name, "input.value": value}
        return build(attributes, parent="node")

    second, named, other = (
        tool("lookup", "R-2"),
        tool("lookup", '{"order_id": "R-9"}'),
        tool("refund", "R-2"),
    )
    orphan = build({"openinference.span.kind": "TOOL", "tool.name": "lookup", "input.value": "R-1"})
    langgraph_tool_calls_resolve([node, second, named, other, orphan])
    assert (second.input, second.tool_call_id) == ({"order_id": "R-2"}, "call_2")
    # arguments already named, a call of two arguments, a tool with no node: kept as sent
    assert named.input == {"order_id": "R-9"}
    assert (other.input, other.tool_call_id) == ("R-2", "")
    assert orphan.input == "R-1"


def test_a_langchain_js_chain_list_output_reads_as_its_messages():
    system = {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain_core", "messages", "SystemMessage"],
        "kwargs": {"content": "Be brief."},
    }
    (message,) = messages_read({"output": [system]})
    assert (message.role, message.text) == ("system", "Be brief.")
    assert messages_read({"output": [1, 2]}) is None
    assert messages_read({"output": [system], "other": 1}) is None
