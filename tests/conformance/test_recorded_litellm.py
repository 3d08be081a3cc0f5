"""LiteLLM's own OpenTelemetry callback (`litellm.callbacks = ["otel"]`), recorded
(runs/litellm_otel.py): a plain tool loop on `litellm.completion`, whole and streamed and with a
lookup that fails once, under the application's own span. Each call is a `litellm_request` span
with a `raw_gen_ai_request` span inside it (the provider's request and reply, or nothing when
streamed); no tool span: the calls and results live in the model calls' messages."""

import copy
import json
from decimal import Decimal

import pytest

from accounts.roles import ANNOTATOR
from judges.models import TraceFormat
from judges.prompts import trace_text_budgeted
from metrics.steps import tool_steps_from_spans, trace_spans
from tests.conformance import support_task
from tests.conformance.fake_openai import COMPLETION_TOKENS, MODEL, PROMPT_TOKENS
from tests.conformance.harness import PROJECT
from tests.conformance.recorded_reading import (
    RECORDED,
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
    judge_reads_after_failure,
)
from tests.factories import UserFactory
from tests.judges.judge_reads import assert_judge_reads, reading_steps
from traces.models import Span, SpanKind, Trace
from traces.serialize import trace_span_tree, trace_transcript, tree_json

pytestmark = pytest.mark.django_db

ERROR = support_task.ORDER_SERVICE_DOWN
# the failed lookup reads as failed, as the checks read it, though only its text says so
RETRIED = judge_reads_after_failure(ERROR, failed_call="call_1")
# what LiteLLM's price map makes of one call (it writes its own cost on the span)
CALL_COST = Decimal("0.000036")


@pytest.fixture
def api(api_client_for):
    return api_client_for(UserFactory(roles=[ANNOTATOR]))


def spans_of(fixture: dict) -> list[dict]:
    return [
        span
        for resource in fixture["request"]["resourceSpans"]
        for scope in resource["scopeSpans"]
        for span in scope["spans"]
    ]


def attribute(span: dict, key: str):
    value = next(a["value"] for a in span["attributes"] if a["key"] == key)
    return next(iter(value.values()))


def assert_calls_read_once(trace: Trace, calls: int):
    """Each `litellm_request` is one model call with its tokens and cost; the raw request span
    inside it is no second call and no step of the reading."""
    spans = Span.objects.filter(trace=trace, kind=SpanKind.LLM)
    assert [span.name for span in spans] == ["litellm_request"] * calls
    assert (trace.input_tokens, trace.output_tokens) == (
        calls * PROMPT_TOKENS,
        calls * COMPLETION_TOKENS,
    )
    assert trace.model == MODEL
    assert trace.cost_usd == calls * CALL_COST
    assert_support_tools_offered(trace)
    tree = trace_span_tree(trace)
    names = [step["name"] for step in reading_steps(tree)]
    assert names == ["support run", *(f"litellm_request#{n}" for n in range(1, calls + 1))]
    assert trace_transcript(trace).count(support_task.SYSTEM_PROMPT) == 1
    assert tree_json(tree).count(support_task.SYSTEM_PROMPT) == 1


def assert_each_decision_once_with_its_id(trace: Trace, ids: list[str]):
    """Each call a reply decided (LiteLLM flattens them, without ids, beside output messages
    that leave them out) shows once, on the reply, under the id the history names it by."""
    decided = calls_decided(trace_span_tree(trace))
    assert [(step["name"], call["call_id"]) for step, call in decided] == [
        (f"litellm_request#{n}", call_id) for n, call_id in enumerate(ids, 1)
    ]
    transcript = trace_transcript(trace)
    for call_id in ids:
        assert transcript.count(f"(call_id {call_id})") == 1, transcript


@pytest.mark.parametrize("run", ["litellm-otel", "litellm-otel-stream"])
def test_litellm_tool_loop(api, run):
    trace = send_recorded(api, run)
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert trace.error_count == 0
    assert_calls_read_once(trace, 3)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "refund"]
    assert_each_decision_once_with_its_id(trace, ["call_1", "call_2"])
    # the results live in the tool messages' GenAI text parts, the call id beside them
    assert results_handed_back(tree) == [("call_1", ORDER, False), ("call_2", REFUND, False)]
    assert_checks_read_support_calls(trace)


def test_litellm_tool_failing_once(api):
    # the loop tells the model `Error: order service unavailable`, and it looks up again
    trace = send_recorded(api, "litellm-otel-tool-error")
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert_calls_read_once(trace, 4)
    assert_judge_reads(trace, RETRIED)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "lookup_order", "refund"]
    assert_each_decision_once_with_its_id(trace, ["call_1", "call_2", "call_3"])
    assert results_handed_back(tree) == [
        ("call_1", f"Error: {ERROR}", True),
        ("call_2", ORDER, False),
        ("call_3", REFUND, False),
    ]
    # the general judge's JSON marks the failed lookup's result an error, as the checks read it
    text, _ = trace_text_budgeted(trace, TraceFormat.SPAN_TREE)
    assert f'"result": "Error: {ERROR}", "error": true' in text
    assert text.count('"error": true') == 1
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.inputs, step.failed) for step in steps] == [
        (*EXPECTED_CALLS[0], True),
        (*EXPECTED_CALLS[0], False),
        (*EXPECTED_CALLS[1], False),
    ]
    assert [step.output for step in steps] == [f"Error: {ERROR}", ORDER, REFUND]


def test_litellm_cost_is_its_own(api):
    # LiteLLM writes each call's cost (`gen_ai.cost.total_cost`, after its discounts and
    # margins): read as the call's, not priced again from evalsite's table
    fixture = json.loads((RECORDED / "litellm-otel.json").read_text())
    body = copy.deepcopy(fixture["request"])
    for span in spans_of({"request": body}):
        for item in span.get("attributes") or ():
            if item["key"] == "gen_ai.cost.total_cost":
                item["value"] = {"doubleValue": 0.25}
    response = api.generic(
        "POST",
        "/v1/traces",
        json.dumps(body),
        content_type="application/json",
        HTTP_X_EVALSITE_PROJECT=PROJECT,
    )
    assert response.status_code == 200, response.content
    assert Trace.objects.get(project__slug=PROJECT).cost_usd == Decimal("0.75")


def test_litellm_recording_shapes():
    # what the recordings show: the premises of the tests above
    for run in ("litellm-otel", "litellm-otel-stream"):
        spans = spans_of(json.loads((RECORDED / f"{run}.json").read_text()))
        calls = [span for span in spans if span["name"] == "litellm_request"]
        first = calls[0]
        output = json.loads(attribute(first, "gen_ai.output.messages"))
        assert output == [{"role": "assistant", "parts": [], "finish_reason": "tool_calls"}]
        assert attribute(first, "gen_ai.completion.0.function_call.name") == "lookup_order"
        assert not any(a["key"].endswith("function_call.id") for a in first["attributes"])
        history = json.loads(attribute(calls[1], "gen_ai.input.messages"))
        assert history[-1]["tool_call_id"] == "call_1" and "content" not in history[-1]
        raw = [span for span in spans if span["name"] == "raw_gen_ai_request"]
        assert {span["parentSpanId"] for span in raw} == {span["spanId"] for span in calls}
        # streamed, the raw request span says nothing at all
        assert all(not span.get("attributes") for span in raw) == run.endswith("stream")
