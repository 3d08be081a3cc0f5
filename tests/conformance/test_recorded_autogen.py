"""AutoGen AgentChat, recorded (runs/autogen.py): under OpenInference's AgentChat instrumentation,
and under its own telemetry with an OpenAI instrumentation beside it."""

from decimal import Decimal

import pytest

from accounts.roles import ANNOTATOR
from metrics.redflags import red_flags_detect
from metrics.steps import tool_steps_from_spans, trace_spans
from tests.conformance import support_task
from tests.conformance.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS
from tests.conformance.harness import tool_calls
from tests.conformance.recorded_reading import (
    assert_support_tools_offered,
    calls_decided,
    models_decided,
    results_handed_back,
    send_recorded,
)
from tests.conformance.test_frameworks import (
    EXPECTED_CALLS,
    JUDGE_READS,
    ORDER,
    REFUND,
    assert_checks_read_support_calls,
    assert_support_calls,
    judge_reads_after_failure,
)
from tests.factories import UserFactory
from tests.judges.judge_reads import assert_judge_reads, reading_steps
from traces.models import Span, SpanKind
from traces.serialize import trace_span_tree, tree_json

pytestmark = pytest.mark.django_db


def assert_autogen_read(trace, model_calls: int):
    """Task and answer, the model calls' usage counted once (the agent spans carry none)."""
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert trace.agent_name == "support" and trace.cost_usd > Decimal(0)
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == model_calls
    assert (trace.input_tokens, trace.output_tokens) == (
        model_calls * PROMPT_TOKENS,
        model_calls * COMPLETION_TOKENS,
    )


def test_autogen_assistant_agent_with_openinference_agentchat(api_client_for):
    # OpenInference's AgentChat instrumentation: an agent span, each model call (streamed)
    # and each tool execution; it records no tools offered (AgentChat hands the model client
    # tool schemas, which it lists only when they are Tool objects)
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "autogen")
    assert_support_calls(trace)
    assert_autogen_read(trace, model_calls=3)
    assert trace.error_count == 0 and "available_tools" not in trace.context
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    decided = [(call["tool"], call["arguments"]) for _, call in calls_decided(tree)]
    assert decided == EXPECTED_CALLS
    # each result is read on its tool step, not again where the model is handed it
    assert results_handed_back(tree) == []
    assert tree_json(tree).count("RF-0091") == 3  # the refund's result, the reply, the answer


def test_autogen_assistant_agent_tool_that_raises(api_client_for):
    from tests.conformance.test_tool_failures import OUTAGE

    # the first lookup raises: AgentChat hands the model the error as a result marked
    # `is_error`, and the model looks up again; the instrumentation's tool span stays OK
    # (its ERROR status comes after the OK it set first, which OpenTelemetry keeps)
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "autogen-tool-error")
    assert_autogen_read(trace, model_calls=4)
    lookup = EXPECTED_CALLS[0]
    calls = tool_calls(trace)
    assert [(name, args) for name, args, _ in calls] == [lookup, *EXPECTED_CALLS]
    assert [result for *_, result in calls] == [OUTAGE, ORDER, REFUND]
    assert_judge_reads(trace, judge_reads_after_failure(OUTAGE))
    tree = trace_span_tree(trace)
    tools = [step for step in reading_steps(tree) if step["type"] == SpanKind.TOOL]
    # the failed lookup reads as failed, from the error mark on what the model was handed
    assert [(step["name"], step.get("error")) for step in tools] == [
        ("lookup_order#1", OUTAGE),
        ("lookup_order#2", None),
        ("refund", None),
    ]
    assert results_handed_back(tree) == [] and "Traceback" not in tree_json(tree)
    # and so do the checks, which then flag no run that recovered
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.failed) for step in steps] == [
        ("lookup_order", True),
        ("lookup_order", False),
        ("refund", False),
    ]
    assert red_flags_detect(trace) == []


def test_autogen_own_telemetry_with_openinference_openai(api_client_for):
    # AutoGen's own spans (`create_agent`, `invoke_agent`, `execute_tool` with the tool's
    # name and call id, no arguments or result) under the user's span, the model calls
    # traced by OpenInference's OpenAI instrumentation
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "autogen-telemetry")
    assert_autogen_read(trace, model_calls=3)
    assert trace.error_count == 0
    tools = Span.objects.filter(trace=trace, kind=SpanKind.TOOL).order_by("position")
    assert [(t.tool_name, t.tool_call_id, t.input, t.output) for t in tools] == [
        ("lookup_order", "call_1", None, None),
        ("refund", "call_2", None, None),
    ]
    assert_tool_steps_read_by_call_id(trace)


def test_autogen_own_telemetry_with_openllmetry_openai(api_client_for):
    # AutoGen's tracing guide: its own spans (`execute_tool` with the tool's name and call id
    # only) and OpenLLMetry's OpenAI instrumentation for the model calls, whose GenAI messages
    # hold the calls decided and the results handed back
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "autogen-traceloop")
    assert_autogen_read(trace, model_calls=3)
    assert trace.error_count == 0 and trace.model == "gpt-4o-mini"
    assert_tool_steps_read_by_call_id(trace)
    assert red_flags_detect(trace) == []


def test_autogen_own_telemetry_with_openllmetry_openai_tool_that_raises(api_client_for):
    from tests.conformance.test_tool_failures import OUTAGE

    # the first lookup raises: AutoGen's `execute_tool` span fails with the exception, and
    # the model is handed its text without a failure mark (AutoGen drops `is_error` when it
    # writes OpenAI's tool message, so OpenLLMetry's messages cannot keep it); the model looks
    # the order up again
    trace = send_recorded(
        api_client_for(UserFactory(roles=[ANNOTATOR])), "autogen-traceloop-tool-error"
    )
    assert_autogen_read(trace, model_calls=4)
    assert trace.error_count == 1
    failed = Span.objects.get(trace=trace, kind=SpanKind.TOOL, status="error")
    assert (failed.tool_call_id, failed.error_message) == ("call_1", f"ConnectionError: {OUTAGE}")
    lookup = EXPECTED_CALLS[0]
    assert_judge_reads(trace, judge_reads_after_failure(OUTAGE))
    tree = trace_span_tree(trace)
    # the failed lookup reads once, on its step: what the model was told is the error's text
    tools = [step for step in reading_steps(tree) if step["type"] == SpanKind.TOOL]
    assert [(s["name"], s["arguments"], s.get("result"), s.get("error")) for s in tools] == [
        ("lookup_order#1", lookup[1], None, f"ConnectionError: {OUTAGE}"),
        ("lookup_order#2", lookup[1], ORDER, None),
        ("refund", EXPECTED_CALLS[1][1], REFUND, None),
    ]
    assert results_handed_back(tree) == [] and "Traceback" not in tree_json(tree)
    assert models_decided(tree) == ["lookup_order", "lookup_order", "refund"]
    # the checks: each call with its arguments and result, the first marked failed, and the
    # recovered run raises no flag
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.inputs, step.output, step.failed) for step in steps] == [
        (*lookup, OUTAGE, True),
        (*lookup, ORDER, False),
        (*EXPECTED_CALLS[1], REFUND, False),
    ]
    assert red_flags_detect(trace) == []


def assert_tool_steps_read_by_call_id(trace) -> None:
    """AutoGen's `execute_tool` spans name a call id only: each tool step reads the arguments its
    call was decided with and the result the model was handed for it, which the model call then
    does not repeat; and so do the checks."""
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    steps = [step for step in reading_steps(tree) if step["type"] == SpanKind.TOOL]
    assert [(s["name"], s["call_id"], s["arguments"], s["result"]) for s in steps] == [
        ("lookup_order", "call_1", EXPECTED_CALLS[0][1], ORDER),
        ("refund", "call_2", EXPECTED_CALLS[1][1], REFUND),
    ]
    assert results_handed_back(tree) == []
    assert models_decided(tree) == ["lookup_order", "refund"]
    assert_checks_read_support_calls(trace)
