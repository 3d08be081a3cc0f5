"""The tools an OTLP trace's model calls were offered become its available tools: what the
judge reads beside the task and the trace page lists."""

import json

import pytest

from tests.factories import ProjectFactory
from tests.traces.shape_spans import Recorder, chain_sent, send
from traces.ingest.services import ingest_span_tree
from traces.models import Trace
from traces.serialize import trace_span_tree, trace_transcript

pytestmark = pytest.mark.django_db

SCHEMA = {
    "type": "object",
    "properties": {"order_id": {"type": "string"}, "amount": {"type": "number"}},
    "required": ["order_id"],
}
REFUND = {"name": "refund", "description": "Refund an order.", "parameters": SCHEMA}
LOOKUP = {"name": "lookup_order", "description": "Look an order up."}
OPENAI_TOOLS = [{"type": "function", "function": tool} for tool in (LOOKUP, REFUND)]


@pytest.mark.parametrize(
    "attributes",
    [
        # the GenAI conventions' list, as the OpenAI v2 instrumentation and pydantic-ai send it
        {
            "gen_ai.tool.definitions": json.dumps(
                [{"type": "function", **tool} for tool in (LOOKUP, REFUND)]
            )
        },
        # OpenInference's flattened schemas
        {
            f"llm.tools.{index}.tool.json_schema": json.dumps(tool)
            for index, tool in enumerate(OPENAI_TOOLS)
        },
        # OpenLLMetry's flattened functions, the parameters as JSON text
        {
            "llm.request.functions.0.name": "lookup_order",
            "llm.request.functions.0.description": "Look an order up.",
            "llm.request.functions.1.name": "refund",
            "llm.request.functions.1.description": "Refund an order.",
            "llm.request.functions.1.parameters": json.dumps(SCHEMA),
        },
    ],
)
def test_the_tools_a_model_call_was_offered_are_the_traces_available_tools(attributes):
    chain_sent(
        ("invoke_agent support", {"gen_ai.operation.name": "invoke_agent"}),
        ("chat gpt-4o", {"gen_ai.operation.name": "chat", **attributes}),
    )
    trace = Trace.objects.get()
    offered = trace.context["available_tools"]
    assert [(tool["name"], tool["description"]) for tool in offered] == [
        ("lookup_order", "Look an order up."),
        ("refund", "Refund an order."),
    ]
    assert offered[1]["parameters"] == SCHEMA
    # the judge reads them at the top of the trajectory, with their parameters
    lookup, refund = trace_span_tree(trace)["available_tools"]
    assert lookup == LOOKUP
    assert sorted(refund.pop("parameters")) == ["amount", "order_id"]
    assert refund == {"name": "refund", "description": "Refund an order."}
    assert "AVAILABLE TOOLS: lookup_order, refund" in trace_transcript(trace)


def test_tools_offered_later_or_by_another_call_are_added_once_by_name():
    recorder = Recorder()
    with recorder.span("invoke_agent support", {"gen_ai.operation.name": "invoke_agent"}):
        with recorder.span("chat", {"gen_ai.tool.definitions": json.dumps([LOOKUP])}):
            pass
        send(recorder.spans())
        recorder.memory.clear()
        # the next request: a call offered both tools, another a tool by name only
        with recorder.span("chat", {"gen_ai.tool.definitions": json.dumps([LOOKUP, REFUND])}):
            pass
        with recorder.span("chat", {"gen_ai.tool.definitions": json.dumps(["escalate"])}):
            pass
    send(recorder.spans())
    trace = Trace.objects.get()
    assert trace.context["available_tools"] == [LOOKUP, REFUND, {"name": "escalate"}]


def test_an_offered_tools_other_keys_are_kept_for_the_checks_that_read_them():
    tool = {"name": "refund", "input_schema": SCHEMA, "prerequisites": ["lookup_order"]}
    chain_sent(("chat", {"gen_ai.tool.definitions": json.dumps([tool])}))
    assert Trace.objects.get().context["available_tools"] == [tool]


def test_available_tools_sent_with_the_trace_come_first_and_are_not_repeated():
    tree = {
        "name": "agent",
        "type": "agent",
        "available_tools": [{"name": "refund", "input_schema": SCHEMA}],
        "children": [
            {
                "name": "chat",
                "type": "llm",
                "attributes": {"gen_ai.tool.definitions": json.dumps([LOOKUP, REFUND])},
            }
        ],
    }
    trace = ingest_span_tree(ProjectFactory(), tree)
    assert [tool["name"] for tool in trace.context["available_tools"]] == [
        "refund",
        "lookup_order",
    ]
    assert trace.context["available_tools"][0] == {"name": "refund", "input_schema": SCHEMA}


def test_a_definitions_attribute_that_is_no_list_adds_nothing():
    chain_sent(("chat", {"gen_ai.operation.name": "chat", "gen_ai.tool.definitions": "{bad"}))
    trace = Trace.objects.get()
    assert "available_tools" not in trace.context
    # the value is still stored as sent
    span = trace.spans.get()
    assert span.attributes["gen_ai.tool.definitions"] == "{bad"
