"""The Google Gen AI SDK under OpenInference's Google GenAI instrumentation, the tool loop run by
hand (recorded: runs/openinference_google_genai.py). No tool is traced: the calls live in the
model calls' messages, each function response named by its function, not by a call id."""

from decimal import Decimal

import pytest

from accounts.roles import ANNOTATOR
from metrics.steps import tool_steps_from_spans, trace_spans
from tests.conformance import support_task
from tests.conformance.fake_gemini import MODEL
from tests.conformance.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS
from tests.conformance.recorded_reading import (
    assert_support_tools_offered,
    models_decided,
    send_recorded,
)
from tests.conformance.test_frameworks import (
    JUDGE_READS,
    ORDER,
    REFUND,
    assert_checks_read_support_calls,
)
from tests.factories import UserFactory
from tests.judges.judge_reads import assert_judge_reads, reading_steps
from traces.models import Span, SpanKind
from traces.serialize import trace_span_tree

pytestmark = pytest.mark.django_db


def results_named(tree: dict) -> list[tuple[str, object, bool]]:
    """(tool, result, error mark) of each result a model step is handed."""
    return [
        (result.get("tool"), result["result"], result.get("error", False))
        for step in reading_steps(tree)
        for message in step.get("new_input") or []
        for result in message.get("tool_results") or []
    ]


@pytest.mark.parametrize(
    "run",
    [
        "openinference-google-genai",
        "openinference-google-genai-stream",
        "openinference-google-genai-chat",
    ],
)
def test_openinference_google_genai_manual_tool_loop(api_client_for, run):
    # generate_content (whole or streamed) and a chat session, automatic function calling off:
    # each function response goes back in the contents as `{"result": <the tool's JSON>}`
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), run)
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == 3
    assert not Span.objects.filter(trace=trace, kind=SpanKind.TOOL)
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.model == MODEL and trace.cost_usd > Decimal(0) and trace.error_count == 0
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "refund"]
    # each result read as what the tool returned, under the function it answers
    assert results_named(tree) == [("lookup_order", ORDER, False), ("refund", REFUND, False)]
    # the checks read the calls from the messages, each with its result
    assert_checks_read_support_calls(trace)


def test_openinference_google_genai_failing_tool(api_client_for):
    # the first lookup raises: the loop hands the model `{"error": "<what it raised>"}`, which
    # marks the failure (no span failed: the tool is not traced)
    from tests.conformance.test_tool_failures import OUTAGE, assert_failure_read

    api = api_client_for(UserFactory(roles=[ANNOTATOR]))
    trace = send_recorded(api, "openinference-google-genai-tool-error")
    assert_failure_read(trace, OUTAGE, recovered=True, tool_spans=False)
    assert (trace.input_tokens, trace.output_tokens) == (4 * PROMPT_TOKENS, 4 * COMPLETION_TOKENS)
    assert results_named(trace_span_tree(trace)) == [
        ("lookup_order", OUTAGE, True),
        ("lookup_order", ORDER, False),
        ("refund", REFUND, False),
    ]
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.output, step.failed) for step in steps] == [
        (OUTAGE, True),
        (ORDER, False),
        (REFUND, False),
    ]
