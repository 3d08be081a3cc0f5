"""Pydantic Logfire's OpenAI and pydantic-ai instrumentations, recorded (runs/logfire.py)."""

from decimal import Decimal

import pytest

from accounts.roles import ANNOTATOR
from metrics.steps import tool_steps_from_spans, trace_spans
from tests.conformance import support_task
from tests.conformance.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS
from tests.conformance.recorded_reading import (
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
    judge_reads_after_failure,
)
from tests.factories import UserFactory
from tests.judges.judge_reads import assert_judge_reads, reading_steps
from traces.models import Span, SpanKind
from traces.serialize import trace_span_tree, tree_json

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "run",
    ["logfire-openai", "logfire-openai-stream", "logfire-openai-v1", "logfire-openai-v1-stream"],
)
def test_logfire_openai_instrumentation(api_client_for, run):
    # `logfire.instrument_openai()` around the plain tool loop under a `logfire.span`: its
    # default writes the GenAI messages, its former attributes (`-v1`) the request body and
    # `{message, usage}` of the reply as `request_data` and `response_data`. Streamed, the
    # call's span ends with the stream opened and the reply is logged beside it
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), run)
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    calls = Span.objects.filter(trace=trace, kind=SpanKind.LLM)
    assert calls.count() == 3  # a streamed call and its logged reply: one model call
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.cost_usd > Decimal(0) and trace.error_count == 0
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "refund"]
    assert results_handed_back(tree) == [("call_1", ORDER, False), ("call_2", REFUND, False)]
    # Logfire names its spans by their message template: read by the message it fills in
    names = [step["name"] for step in reading_steps(tree)]
    assert not [name for name in names if "{" in name], names
    if "stream" in run:
        assert all(name.startswith("streaming response from 'gpt-4o-mini'") for name in names[1:])
    else:
        assert names[1:] == [f"Chat Completion with 'gpt-4o-mini'#{n}" for n in (1, 2, 3)]


def test_logfire_pydantic_ai_instrumentation(api_client_for):
    # `logfire.instrument_pydantic_ai()`: pydantic-ai's own spans through Logfire's tracer,
    # which adds its `logfire.*` attributes (a message of its own on each span, the run's
    # token sums as `logfire.metrics` on the agent span)
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "logfire-pydantic-ai")
    assert_support_calls(trace)
    root = Span.objects.get(trace=trace, parent_span_id="")
    assert (root.kind, root.name, trace.agent_name) == (
        SpanKind.AGENT,
        "invoke_agent support",
        "support",
    )
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == 3
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.cost_usd > Decimal(0) and trace.error_count == 0
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "refund"]
    # each result read on its tool step, not handed back again on the next model call
    assert results_handed_back(tree) == []


def test_logfire_pydantic_ai_tool_retry(api_client_for):
    # the first lookup raises ModelRetry: pydantic-ai fails its tool span (the exception event
    # with its traceback) and tells the model the message; the model looks the order up again
    trace = send_recorded(
        api_client_for(UserFactory(roles=[ANNOTATOR])), "logfire-pydantic-ai-tool-error"
    )
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.failed) for step in steps] == [
        ("lookup_order", True),
        ("lookup_order", False),
        ("refund", False),
    ]
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert (trace.input_tokens, trace.output_tokens) == (4 * PROMPT_TOKENS, 4 * COMPLETION_TOKENS)
    assert trace.error_count == 1
    error = "order service unavailable"
    failed = Span.objects.get(trace=trace, kind=SpanKind.TOOL, status="error")
    assert failed.error_message == f"pydantic_ai.exceptions.ToolRetryError: {error}"
    assert_judge_reads(trace, judge_reads_after_failure(error))
    reading = tree_json(trace_span_tree(trace))
    assert "Traceback" not in reading and "site-packages" not in reading
