"""Bedrock's Converse API under the botocore instrumentation, recorded (runs/bedrock.py): model
spans, messages as log records."""

from decimal import Decimal

import pytest

from accounts.roles import ANNOTATOR
from tests.conformance import support_task
from tests.conformance.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS
from tests.conformance.recorded_reading import (
    calls_decided,
    results_handed_back,
    send_recorded,
)
from tests.conformance.test_frameworks import (
    EXPECTED_CALLS,
    JUDGE_READS,
    ORDER,
    REFUND,
    judge_reads_after_failure,
)
from tests.factories import UserFactory
from tests.judges.judge_reads import assert_judge_reads
from traces.models import Span, SpanKind
from traces.serialize import trace_span_tree, tree_json

pytestmark = pytest.mark.django_db


BEDROCK_MODEL = "anthropic.claude-3-5-sonnet-20240620-v1:0"


@pytest.mark.parametrize("name", ["bedrock", "bedrock-stream"])
def test_bedrock_converse_with_botocore_instrumentation(api_client_for, name):
    # a plain Converse (or ConverseStream) tool loop under a root that says nothing: the
    # botocore instrumentation makes one span a model call and sends the messages as log
    # records (pre-1.37 GenAI events), joined to the calls by span id
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), name)
    spans = Span.objects.filter(trace=trace)
    assert sorted(span.kind for span in spans) == [SpanKind.CUSTOM] + [SpanKind.LLM] * 3
    calls = spans.filter(kind=SpanKind.LLM).order_by("position")
    assert {call.name for call in calls} == {f"chat {BEDROCK_MODEL}"}
    assert [e["name"] for e in calls[0].attributes["otel.logs"]] == [
        "gen_ai.system.message",
        "gen_ai.user.message",
        "gen_ai.choice",
    ]
    assert trace.task == support_task.TASK
    assert trace.final_answer == support_task.FINAL_ANSWER
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.model == BEDROCK_MODEL and trace.cost_usd > Decimal(0)
    assert trace.error_count == 0
    # the instrumentation records no `toolConfig`: no tools offered to read
    assert "available_tools" not in trace.context
    assert_judge_reads(trace, JUDGE_READS)
    # each result is given as a `gen_ai.tool.message` event and again as the next user turn's
    # `toolResult` block: read once, under its call id
    tree = trace_span_tree(trace)
    decided = [(call["tool"], call["arguments"]) for _, call in calls_decided(tree)]
    assert decided == EXPECTED_CALLS
    assert results_handed_back(tree) == [("call_1", ORDER, False), ("call_2", REFUND, False)]
    assert tree_json(tree).count("RF-0091") == 3  # the refund's result, the reply, the answer


def test_bedrock_converse_tool_error(api_client_for):
    # `lookup_order` raises once; the loop answers the model with the error, `status: error`
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "bedrock-tool-error")
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == 4
    assert (trace.input_tokens, trace.output_tokens) == (4 * PROMPT_TOKENS, 4 * COMPLETION_TOKENS)
    assert trace.final_answer == support_task.FINAL_ANSWER
    error = "order service timed out"
    lookup = EXPECTED_CALLS[0]
    assert_judge_reads(trace, judge_reads_after_failure(error))
    tree = trace_span_tree(trace)
    decided = [(call["tool"], call["arguments"]) for _, call in calls_decided(tree)]
    assert decided == [lookup, *EXPECTED_CALLS]
    # the failed result is marked on the result the events give twice, and read once
    assert results_handed_back(tree) == [
        ("call_1", error, True),
        ("call_2", ORDER, False),
        ("call_3", REFUND, False),
    ]
    assert "Traceback" not in tree_json(tree)
