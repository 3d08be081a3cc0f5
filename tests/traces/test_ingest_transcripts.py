"""ingest_transcript: Anthropic Messages and OpenAI chat lists become the same span tree."""

import json

import pytest

from core.errors import ApplicationError
from tests.factories import ProjectFactory
from tests.traces.openai_messages import assistant_tool_call
from traces.ingest.services import ingest_transcript
from traces.models import SourceFormat, SpanKind, SpanStatus, Trace

pytestmark = pytest.mark.django_db

ANTHROPIC = {
    "format": "anthropic",
    "model": "claude-sonnet-4-5",
    "system": "You are a support agent for Acme Shop.",
    "tools": [
        {"name": "get_recent_orders", "input_schema": {"type": "object"}},
        {"name": "cancel_order", "input_schema": {"type": "object"}},
    ],
    "messages": [
        {"role": "user", "content": "Cancel my most recent order, it was placed by mistake."},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me find your latest order."},
                {
                    "type": "tool_use",
                    "id": "toolu_01",
                    "name": "get_recent_orders",
                    "input": {"customer_id": "C-77"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01",
                    "content": '{"orders": [{"order_id": "A1042", "status": "processing"}]}',
                }
            ],
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_02",
                    "name": "cancel_order",
                    "input": {"order_id": "A1042", "reason": "placed by mistake"},
                }
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_02",
                    "is_error": True,
                    "content": [{"type": "text", "text": "OrderLocked: warehouse already picking"}],
                }
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Order A1042 is being packed, so I couldn't cancel it."}
            ],
        },
    ],
}

OPENAI = {
    "messages": [
        {"role": "system", "content": "You book travel."},
        {"role": "user", "content": "Find me a hotel in Porto for 3 nights from 2 June."},
        assistant_tool_call(
            "call_9", "search_hotels", '{"city": "Porto", "check_in": "2026-06-02", "nights": 3}'
        ),
        {
            "role": "tool",
            "tool_call_id": "call_9",
            "content": '{"hotels": [{"name": "Casa da Ribeira", "price": 142}]}',
        },
        {"role": "assistant", "content": "Casa da Ribeira has 3 nights from 2 June at €142."},
    ],
    "agent_name": "travel-agent",
}


def test_anthropic_transcript_becomes_a_tree_with_tool_results_and_errors():
    # when
    trace = ingest_transcript(ProjectFactory(), ANTHROPIC)
    # then
    trace.refresh_from_db()
    assert trace.source_format == SourceFormat.ANTHROPIC
    assert trace.task == "Cancel my most recent order, it was placed by mistake."
    assert trace.final_answer == "Order A1042 is being packed, so I couldn't cancel it."
    assert trace.context["available_tools"][1]["name"] == "cancel_order"
    spans = list(trace.spans.order_by("position"))
    assert [(s.kind, s.tool_name) for s in spans] == [
        (SpanKind.AGENT, ""),
        (SpanKind.LLM, ""),
        (SpanKind.TOOL, "get_recent_orders"),
        (SpanKind.LLM, ""),
        (SpanKind.TOOL, "cancel_order"),
        (SpanKind.LLM, ""),
    ]
    lookup, cancel = spans[2], spans[4]
    assert lookup.input == {"customer_id": "C-77"}
    assert lookup.output == {"orders": [{"order_id": "A1042", "status": "processing"}]}
    assert lookup.tool_call_id == "toolu_01"
    assert cancel.status == SpanStatus.ERROR
    assert cancel.error_message == "OrderLocked: warehouse already picking"
    assert spans[1].model == "claude-sonnet-4-5"
    assert spans[0].attributes["gen_ai.system_instructions"].startswith("You are a support")


def test_openai_transcript_is_detected_and_arguments_decoded():
    # when
    trace = ingest_transcript(ProjectFactory(), OPENAI)
    # then
    trace.refresh_from_db()
    assert trace.source_format == SourceFormat.OPENAI
    assert trace.agent_name == "travel-agent"
    assert trace.task.startswith("Find me a hotel in Porto")
    assert trace.final_answer.startswith("Casa da Ribeira")
    tool = trace.spans.get(kind=SpanKind.TOOL)
    assert tool.input == {"city": "Porto", "check_in": "2026-06-02", "nights": 3}
    assert tool.output["hotels"][0]["price"] == 142
    assert tool.status == SpanStatus.OK


def test_tool_call_without_a_result_is_marked_as_an_error():
    # given the agent stopped before the tool answered
    transcript = json.loads(json.dumps(OPENAI))
    del transcript["messages"][3:]
    # when
    trace = ingest_transcript(ProjectFactory(), transcript)
    # then
    tool = trace.spans.get(kind=SpanKind.TOOL)
    assert tool.status == SpanStatus.ERROR
    assert "No tool message" in tool.error_message


def test_resending_a_transcript_changes_nothing():
    project = ProjectFactory()
    first = ingest_transcript(project, ANTHROPIC)
    again = ingest_transcript(project, json.loads(json.dumps(ANTHROPIC)))
    assert first.pk == again.pk
    assert Trace.objects.get().spans.count() == 6


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"messages": []}, "messages"),
        ({"messages": "hi"}, "messages"),
        ({"messages": [{"content": "no role"}]}, "messages[0].role"),
        ({"messages": [{"role": "user", "content": "x"}], "format": "gemini"}, "format"),
        (
            {"messages": [{"role": "assistant", "tool_calls": [{"id": "1"}]}]},
            "messages[0].tool_calls[0].function.name",
        ),
    ],
)
def test_bad_transcripts_name_the_field(payload, field):
    with pytest.raises(ApplicationError) as caught:
        ingest_transcript(ProjectFactory(), payload)
    assert caught.value.field == field
    assert Trace.objects.count() == 0
