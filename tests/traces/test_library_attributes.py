"""Attribute names agent-wrapper libraries use beyond the GenAI conventions, read as data."""

import json

import pytest

from tests.factories import ProjectFactory
from tests.traces.shape_spans import chain_sent
from traces.ingest.services import ingest_span_tree
from traces.models import Span, SpanKind, Trace

pytestmark = pytest.mark.django_db


def test_gen_ai_tool_args_and_gen_ai_output_are_a_tools_arguments_and_result():
    chain_sent(
        ("invoke_agent helper", {"gen_ai.operation.name": "invoke_agent"}),
        (
            "execute_tool get_weather",
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_weather",
                "gen_ai.tool.args": json.dumps({"city": "Lyon"}),
                "gen_ai.output": json.dumps({"temp": 21}),
            },
        ),
    )
    tool = Span.objects.get(kind=SpanKind.TOOL)
    assert (tool.input, tool.output) == ({"city": "Lyon"}, {"temp": 21})


def test_gen_ai_output_on_the_last_model_call_is_the_final_answer():
    question = [{"role": "user", "parts": [{"type": "text", "content": "Weather in Lyon?"}]}]
    chain_sent(
        ("invoke_agent helper", {"gen_ai.operation.name": "invoke_agent"}),
        (
            "call_llm",
            {
                "gen_ai.operation.name": "call_llm",
                "gen_ai.request.model": "gpt-4o-mini",
                "gen_ai.input.messages": json.dumps(question),
                "gen_ai.output": "It is 21 degrees in Lyon.",
            },
        ),
    )
    trace = Trace.objects.get()
    assert trace.task == "Weather in Lyon?"
    assert trace.final_answer == "It is 21 degrees in Lyon."


def test_an_openinference_model_span_with_args_input_gives_the_task():
    # given an OpenInference LLM span whose input.value is the wrapped call's arguments
    chain_sent(
        ("agent", {"openinference.span.kind": "AGENT"}),
        (
            "Model.generate",
            {
                "openinference.span.kind": "LLM",
                "llm.model_name": "gpt-4o-mini",
                "input.value": json.dumps({"args": ["Book a table for two at 8pm."]}),
                "input.mime_type": "application/json",
                "output.value": "Booked for 8pm.",
            },
        ),
    )
    trace = Trace.objects.get()
    assert trace.task == "Book a table for two at 8pm."
    assert trace.final_answer == "Booked for 8pm."


@pytest.mark.parametrize(
    ("output", "final_answer"),
    [
        # a root output that is a Python dict's repr, not JSON, is read as data
        (
            "{'role': 'assistant', 'text': \"Yes, it's open 10-4 on Sunday.\"}",
            "Yes, it's open 10-4 on Sunday.",
        ),
        # and is never evaluated as code
        ("{'text': __import__('os').getcwd()}", "{'text': __import__('os').getcwd()}"),
    ],
    ids=["read_as_data", "never_evaluated_as_code"],
)
def test_a_python_literal_root_output(output, final_answer):
    payload = {"name": "agent", "type": "agent", "input": "Hi", "output": output, "children": []}
    trace = ingest_span_tree(ProjectFactory(), payload)
    assert trace.final_answer == final_answer
