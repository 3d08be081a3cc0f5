"""The Anthropic SDK under Pydantic Logfire's `logfire.instrument_anthropic()`, the plain tool
loop (recorded: runs/logfire_anthropic.py). No tool is traced: the calls live in the model
calls' messages, `tool_use` and `tool_result` under their call ids."""

from decimal import Decimal

import pytest

from accounts.roles import ANNOTATOR
from metrics.steps import tool_steps_from_spans, trace_spans
from tests.conformance import support_task
from tests.conformance.fake_anthropic import MODEL
from tests.conformance.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS
from tests.conformance.recorded_reading import (
    RECORDED,
    assert_support_tools_offered,
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
)
from tests.factories import UserFactory
from tests.judges.judge_reads import Expected, assert_judge_reads
from traces.models import Span, SpanKind
from traces.serialize import trace_span_tree

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("run", ["logfire-anthropic", "logfire-anthropic-stream"])
def test_logfire_anthropic_instrumentation(api_client_for, run):
    # Logfire's default attributes: the GenAI messages; streamed, the call's span ends with the
    # stream opened and the reply is logged beside it (one model call)
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), run)
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert not Span.objects.filter(trace=trace, kind=SpanKind.TOOL)
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.model == MODEL and trace.cost_usd > Decimal(0) and trace.error_count == 0
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "refund"]
    assert results_handed_back(tree) == [("call_1", ORDER, False), ("call_2", REFUND, False)]
    assert_checks_read_support_calls(trace)


def test_logfire_anthropic_former_attributes_failing_tool(api_client_for):
    # `version=1`: the request body as `request_data` (its `tool_result` keeps `is_error`) and
    # the reply as a chat completion message whose calls' arguments Logfire writes as
    # `{"input": {...}}`: read as the arguments the model gave, each decision once
    from tests.conformance.test_tool_failures import OUTAGE, assert_failure_read

    api = api_client_for(UserFactory(roles=[ANNOTATOR]))
    trace = send_recorded(api, "logfire-anthropic-v1-tool-error")
    assert_failure_read(trace, OUTAGE, recovered=True, tool_spans=False)
    assert (trace.input_tokens, trace.output_tokens) == (4 * PROMPT_TOKENS, 4 * COMPLETION_TOKENS)
    tree = trace_span_tree(trace)
    assert results_handed_back(tree) == [
        ("call_1", OUTAGE, True),
        ("call_2", ORDER, False),
        ("call_3", REFUND, False),
    ]
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [step.inputs for step in steps] == [
        EXPECTED_CALLS[0][1],
        EXPECTED_CALLS[0][1],
        EXPECTED_CALLS[1][1],
    ]


def test_logfire_anthropic_default_attributes_leave_the_error_mark_out(api_client_for):
    # Logfire's GenAI messages write a `tool_result` as a `tool_call_response` part without its
    # `is_error`: the judge reads the error the model was handed, under its call id, unmarked
    from tests.conformance.test_tool_failures import LOOKUP, OUTAGE, REFUND_CALL

    fixture = (RECORDED / "logfire-anthropic-tool-error.json").read_text()
    assert "is_error" not in fixture and OUTAGE in fixture
    trace = send_recorded(
        api_client_for(UserFactory(roles=[ANNOTATOR])), "logfire-anthropic-tool-error"
    )
    assert trace.final_answer == support_task.FINAL_ANSWER
    assert (trace.input_tokens, trace.output_tokens) == (4 * PROMPT_TOKENS, 4 * COMPLETION_TOKENS)
    assert results_handed_back(trace_span_tree(trace)) == [
        ("call_1", OUTAGE, False),
        ("call_2", ORDER, False),
        ("call_3", REFUND, False),
    ]
    expected = Expected(
        task=support_task.TASK,
        final_answer=support_task.FINAL_ANSWER,
        calls=[LOOKUP, LOOKUP, REFUND_CALL],
        results=[OUTAGE, ORDER, REFUND],
    )
    assert_judge_reads(trace, expected)
    steps = tool_steps_from_spans(trace_spans(trace))
    # the checks read the three calls; the failure is not there to see
    assert [(step.tool, step.output, step.failed) for step in steps] == [
        ("lookup_order", OUTAGE, False),
        ("lookup_order", ORDER, False),
        ("refund", REFUND, False),
    ]
