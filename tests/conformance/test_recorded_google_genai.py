"""The Google Gen AI SDK under the OpenTelemetry Google GenAI instrumentation, recorded
(runs/google_genai.py)."""

import json
from decimal import Decimal

import pytest

from accounts.roles import ANNOTATOR
from tests.conformance import support_task
from tests.conformance.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS
from tests.conformance.recorded_reading import (
    RECORDED,
    assert_support_tools_offered,
    models_decided,
    results_handed_back,
    send_recorded,
)
from tests.conformance.test_frameworks import (
    JUDGE_READS,
    ORDER,
    REFUND,
    assert_support_calls,
)
from tests.factories import UserFactory
from tests.judges.judge_reads import Expected, assert_judge_reads
from traces.models import Span, SpanKind
from traces.serialize import trace_span_tree, tree_json

pytestmark = pytest.mark.django_db


def test_google_genai_automatic_function_calling(api_client_for):
    # generate_content with Python functions as tools runs the calls itself; the OpenTelemetry
    # instrumentation wraps the whole loop in one model span, the tools' spans under it, and
    # reports the last response's usage and reply (content on spans: SPAN_ONLY)
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "google-genai")
    assert_support_calls(trace)
    (call,) = Span.objects.filter(trace=trace, kind=SpanKind.LLM)
    tools = Span.objects.filter(trace=trace, kind=SpanKind.TOOL)
    assert {tool.parent_span_id for tool in tools} == {call.span_id}
    # its operation-details log record, sent without content, repeats the usage: counted once
    assert (trace.input_tokens, trace.output_tokens) == (PROMPT_TOKENS, COMPLETION_TOKENS)
    assert trace.model == "gemini-2.0-flash" and trace.cost_usd > Decimal(0)
    assert trace.error_count == 0
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    # the call's reply is read after the tools it ran, as it came
    reading = tree_json(trace_span_tree(trace))
    reply = reading.index('"output": [{"role": "assistant", "text": "Refunded')
    assert reading.index('"name": "lookup_order"') < reading.index('"name": "refund"') < reply


@pytest.mark.parametrize("logs_first", [False, True])
def test_google_genai_streamed_with_content_on_spans_and_events(api_client_for, logs_first):
    # the same loop streamed; SPAN_AND_EVENT writes the content on the span and again in its
    # log record, and the span's reply merges the loop's three replies
    api = api_client_for(UserFactory(roles=[ANNOTATOR]))
    trace = send_recorded(api, "google-genai-stream", logs_first=logs_first)
    assert_support_calls(trace)
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == 1
    assert (trace.input_tokens, trace.output_tokens) == (PROMPT_TOKENS, COMPLETION_TOKENS)
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    assert models_decided(trace_span_tree(trace)) == ["lookup_order", "refund"]


@pytest.mark.parametrize("logs_first", [False, True])
def test_google_genai_chat_session_with_content_in_events(api_client_for, logs_first):
    # a chat session runs the tools itself, one generate_content a model call and no tool
    # spans; EVENT_ONLY: the messages come only in the calls' log records
    api = api_client_for(UserFactory(roles=[ANNOTATOR]))
    trace = send_recorded(api, "google-genai-chat", logs_first=logs_first)
    calls = Span.objects.filter(trace=trace, kind=SpanKind.LLM)
    assert calls.count() == 3 and not Span.objects.filter(trace=trace, kind=SpanKind.TOOL)
    fixture = json.loads((RECORDED / "google-genai-chat.json").read_text())
    assert "gen_ai.input.messages" not in json.dumps(fixture["request"])
    assert trace.task == support_task.TASK
    assert trace.final_answer == support_task.FINAL_ANSWER
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "refund"]
    # each function response `{"result": "<the tool's JSON>"}` reads as what the tool returned
    handed_back = [(result, failed) for _, result, failed in results_handed_back(tree)]
    assert handed_back == [(ORDER, False), (REFUND, False)]


def test_google_genai_failing_tool(api_client_for):
    # the first lookup raises: the SDK hands the model the error, the model looks up again
    from tests.conformance.test_tool_failures import OUTAGE, assert_failure_read

    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "google-genai-failing")
    assert_failure_read(trace, OUTAGE, recovered=True)
    failed = Span.objects.get(trace=trace, kind=SpanKind.TOOL, status="error")
    assert failed.error_message == OUTAGE


def test_google_genai_chat_session_failing_tool(api_client_for):
    # in a chat session the failure lives only in the function response, `{"error": ...}`
    from tests.conformance.test_tool_failures import LOOKUP, OUTAGE, REFUND_CALL

    trace = send_recorded(
        api_client_for(UserFactory(roles=[ANNOTATOR])), "google-genai-chat-failing"
    )
    assert trace.final_answer == support_task.FINAL_ANSWER
    assert (trace.input_tokens, trace.output_tokens) == (4 * PROMPT_TOKENS, 4 * COMPLETION_TOKENS)
    tree = trace_span_tree(trace)
    (_, error, error_failed), *rest = results_handed_back(tree)
    assert error_failed and OUTAGE in error and "Traceback" not in tree_json(tree)
    assert [(result, failed) for _, result, failed in rest] == [(ORDER, False), (REFUND, False)]
    expected = Expected(
        task=support_task.TASK,
        final_answer=support_task.FINAL_ANSWER,
        calls=[LOOKUP, LOOKUP, REFUND_CALL],
        results=[ORDER, REFUND],
        errors=[OUTAGE],
    )
    assert_judge_reads(trace, expected)
