"""The Google Gen AI SDK under OpenLLMetry's Gemini instrumentation (recorded:
runs/openllmetry_google_genai.py), the tool loop run by hand. No tool is traced: the calls live
in the model calls' messages. 0.58 on writes `gen_ai.input.messages` and
`gen_ai.output.messages`, each call and function response with an empty id and the response
unnamed; 0.57 writes `gen_ai.prompt.N.*` and `gen_ai.completion.N.*`, each part that is not
text as its str(), and no reply for a call that answered with a function call."""

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
from tests.conformance.test_frameworks import EXPECTED_CALLS, JUDGE_READS, ORDER, REFUND
from tests.factories import UserFactory
from tests.judges.judge_reads import assert_judge_reads, reading_steps
from traces.models import Span, SpanKind
from traces.serialize import trace_span_tree, tree_json

pytestmark = pytest.mark.django_db


def results_named(tree: dict) -> list[tuple[str, object, bool]]:
    """(tool, result, error mark) of each result a model step is handed."""
    return [
        (result.get("tool"), result["result"], result.get("error", False))
        for step in reading_steps(tree)
        for message in step.get("new_input") or []
        for result in message.get("tool_results") or []
    ]


def checks_read(trace) -> list[tuple]:
    return [
        (step.tool, step.inputs, step.output, step.failed)
        for step in tool_steps_from_spans(trace_spans(trace))
    ]


@pytest.mark.parametrize(
    "run",
    [
        "openllmetry-google-genai",
        "openllmetry-google-genai-flat",
        "openllmetry-google-genai-flat-stream",
    ],
)
def test_openllmetry_google_genai_manual_tool_loop(api_client_for, run):
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), run)
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == 3
    assert not Span.objects.filter(trace=trace, kind=SpanKind.TOOL)
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.model == MODEL and trace.cost_usd > Decimal(0) and trace.error_count == 0
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    # each decision once, on the step that made it: 0.57 records no reply for a function
    # call (streamed, the text `None`), the next call's history tells it
    assert models_decided(tree) == ["lookup_order", "refund"]
    assert reading_steps(tree)[1]["output"][0]["tool_calls"][0]["tool"] == "lookup_order"
    # each result under the function it answers, read from the empty ids' order or from the
    # part's str(); no Part field left in what the judge reads
    assert results_named(tree) == [("lookup_order", ORDER, False), ("refund", REFUND, False)]
    assert "function_call=" not in tree_json(tree) and '"text": "None"' not in tree_json(tree)
    # the checks read the calls from the messages, each with its result
    assert checks_read(trace) == [
        (*EXPECTED_CALLS[0], ORDER, False),
        (*EXPECTED_CALLS[1], REFUND, False),
    ]
    if run == "openllmetry-google-genai":  # 0.57 records neither tools nor finish reasons
        assert_support_tools_offered(trace)
        assert trace.stop_reason == "stop"


@pytest.mark.parametrize(
    "run", ["openllmetry-google-genai-tool-error", "openllmetry-google-genai-flat-tool-error"]
)
def test_openllmetry_google_genai_failing_tool(api_client_for, run):
    # the first lookup raises: the loop hands the model `{"error": "<what it raised>"}`, which
    # marks the failure (no span failed: the tool is not traced)
    from tests.conformance.test_tool_failures import OUTAGE, assert_failure_read

    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), run)
    assert_failure_read(trace, OUTAGE, recovered=True, tool_spans=False)
    assert (trace.input_tokens, trace.output_tokens) == (4 * PROMPT_TOKENS, 4 * COMPLETION_TOKENS)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "lookup_order", "refund"]
    assert results_named(tree) == [
        ("lookup_order", OUTAGE, True),
        ("lookup_order", ORDER, False),
        ("refund", REFUND, False),
    ]
    assert [(output, failed) for *_, output, failed in checks_read(trace)] == [
        (OUTAGE, True),
        (ORDER, False),
        (REFUND, False),
    ]


def test_openllmetry_google_genai_stream_keeps_the_last_chunk(api_client_for):
    # generate_content_stream: 0.58 on records only the last chunk's text of a streamed reply
    # (the fake streams the answer in two halves), so the answer read is its second half; the
    # calls, results and tokens read whole
    api = api_client_for(UserFactory(roles=[ANNOTATOR]))
    trace = send_recorded(api, "openllmetry-google-genai-stream")
    answer = support_task.FINAL_ANSWER
    assert trace.final_answer == answer[len(answer) // 2 :]
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "refund"]
    assert results_named(tree) == [("lookup_order", ORDER, False), ("refund", REFUND, False)]
    assert [step[0] for step in checks_read(trace)] == ["lookup_order", "refund"]


def test_openllmetry_google_genai_automatic_function_calling(api_client_for):
    # generate_content runs the tools itself: one span over the whole loop, handed the task and
    # answering the final text; the calls it made inside are recorded nowhere
    api = api_client_for(UserFactory(roles=[ANNOTATOR]))
    trace = send_recorded(api, "openllmetry-google-genai-automatic")
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == 1
    assert (trace.input_tokens, trace.output_tokens) == (PROMPT_TOKENS, COMPLETION_TOKENS)
    assert_support_tools_offered(trace)
    assert models_decided(trace_span_tree(trace)) == []
    assert checks_read(trace) == []
