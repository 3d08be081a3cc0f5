"""The Langfuse Python SDK, recorded (runs/langfuse.py): `@observe` around the agent loop and
each tool, the `langfuse.openai` drop-in around the model calls, whole, streamed and with a
lookup that fails once; and the Langfuse shapes those runs do not send, on spans built by
hand."""

import json
from decimal import Decimal

import pytest

from accounts.roles import ANNOTATOR
from metrics.steps import tool_steps_from_spans, trace_spans
from tests.conformance import support_task
from tests.conformance.fake_openai import COMPLETION_TOKENS, MODEL, PROMPT_TOKENS
from tests.conformance.recorded_reading import (
    assert_support_tools_offered,
    models_decided,
    results_handed_back,
    send_recorded,
)
from tests.conformance.runs.langfuse import SESSION_ID, TAGS, USER_ID
from tests.conformance.test_frameworks import (
    EXPECTED_CALLS,
    JUDGE_READS,
    ORDER,
    REFUND,
    assert_support_calls,
    judge_reads_after_failure,
)
from tests.factories import UserFactory
from tests.judges.judge_reads import assert_judge_reads, reading_steps
from traces.ingest.records import span_record_build
from traces.models import Span, SpanKind
from traces.serialize import trace_span_tree, trace_transcript, tree_json

pytestmark = pytest.mark.django_db

ERROR = support_task.ORDER_SERVICE_DOWN


@pytest.fixture
def agent_api(api_client_for):
    return api_client_for(UserFactory(roles=[ANNOTATOR]))


def tool_steps(tree: dict) -> list[tuple]:
    """(tool, call id, result or error) of each tool step of a reading."""
    return [
        (step["name"].partition("#")[0], step.get("call_id"), step.get("result", step.get("error")))
        for step in reading_steps(tree)
        if step["type"] == SpanKind.TOOL
    ]


@pytest.mark.parametrize("run", ["langfuse", "langfuse-stream"])
def test_langfuse_observe_and_openai_drop_in(agent_api, run):
    # an `agent` observation over three `generation`s and two `tool`s, each value JSON text
    trace = send_recorded(agent_api, run)
    assert_support_calls(trace)
    root = Span.objects.get(trace=trace, parent_span_id="")
    assert (root.kind, root.name) == (SpanKind.AGENT, "support-agent")
    calls = Span.objects.filter(trace=trace, kind=SpanKind.LLM)
    assert [call.model for call in calls] == [MODEL] * 3
    # usage by type, the OpenAI usage object as the wrapper passes it: each call counted once,
    # priced from the model (the SDK states a cost only where the provider gave one)
    assert [(c.input_tokens, c.output_tokens) for c in calls] == [
        (PROMPT_TOKENS, COMPLETION_TOKENS)
    ] * 3
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.cost_usd > Decimal(0) and trace.error_count == 0
    # the tools each generation's input lists beside its messages
    assert_support_tools_offered(trace)
    # propagated to every observation: the user, the session, the tags
    assert trace.context["user_id"] == USER_ID
    assert trace.session.external_id == SESSION_ID
    assert sorted(trace.tags.values_list("name", flat=True)) == sorted(TAGS)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "refund"]
    # the tool spans name no call: each reads the id of the call decided with its arguments
    assert tool_steps(tree) == [("lookup_order", "call_1", ORDER), ("refund", "call_2", REFUND)]
    assert results_handed_back(tree) == []
    # `@observe`'s `{"args": [task], "kwargs": {}}` on the agent reads as the task, shown once
    reading = tree_json(tree)
    assert '"args"' not in reading and '"kwargs"' not in reading
    assert reading.count(support_task.TASK) == 1
    # the streamed wrapper states each call's finish reason in its metadata, the whole one none
    assert trace.stop_reason == ("stop" if "stream" in run else "")
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.inputs, step.failed) for step in steps] == [
        (name, arguments, False) for name, arguments in EXPECTED_CALLS
    ]


def test_langfuse_tool_failing_once(agent_api):
    # the lookup raises once: `@observe` ends its tool observation at level ERROR with the
    # message (the span's status error); the loop tells the model `Error: ...` and it retries
    trace = send_recorded(agent_api, "langfuse-tool-error")
    failed = Span.objects.get(trace=trace, kind=SpanKind.TOOL, status="error")
    assert (failed.tool_name, failed.error_message, failed.output) == ("lookup_order", ERROR, None)
    assert trace.error_count == 1
    assert (trace.input_tokens, trace.output_tokens) == (4 * PROMPT_TOKENS, 4 * COMPLETION_TOKENS)
    assert_judge_reads(trace, judge_reads_after_failure(ERROR))
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "lookup_order", "refund"]
    assert tool_steps(tree) == [
        ("lookup_order", "call_1", ERROR),
        ("lookup_order", "call_2", ORDER),
        ("refund", "call_3", REFUND),
    ]
    # the error the model was handed (`Error: ...`) is the one its tool step showed
    assert results_handed_back(tree) == []
    transcript = trace_transcript(trace)
    assert transcript.count(ERROR) == 1
    assert "TOOL CALL lookup_order#1 (call_id call_1)" in transcript
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.failed) for step in steps] == [
        ("lookup_order", True),
        ("lookup_order", False),
        ("refund", False),
    ]


def _generation(**attributes):
    return span_record_build(
        trace_external_id="t",
        span_id="s",
        parent_span_id="r",
        name="generation",
        attributes={"langfuse.observation.type": "generation", **attributes},
    )


@pytest.mark.parametrize(
    ("usage", "tokens"),
    [
        # Langfuse's own types: every type holding `input` (or `output`) is a part of it
        ('{"input": 100, "input_cached_tokens": 20, "output": 40, "total": 160}', (120, 40)),
        # a provider's usage object: OpenAI's chat and responses, Anthropic's with cache parts
        ('{"prompt_tokens": 90, "completion_tokens": 9, "total_tokens": 99}', (90, 9)),
        ('{"input_tokens": 70, "output_tokens": 7, "input_tokens_details": {}}', (70, 7)),
        ('{"input_tokens": 5, "cache_read_input_tokens": 50, "output_tokens": 3}', (55, 3)),
        ('{"total": 12}', (0, 0)),
        ("not json", (0, 0)),
    ],
)
def test_langfuse_usage_by_type(usage, tokens):
    record = _generation(**{"langfuse.observation.usage_details": usage})
    assert (record.input_tokens, record.output_tokens) == tokens


def test_langfuse_cost_by_type_wins_over_the_price():
    usage = {"langfuse.observation.usage_details": '{"input": 1000, "output": 100}'}
    model = {"langfuse.observation.model.name": "gpt-4o-mini"}
    priced = _generation(**usage, **model)
    assert priced.cost_usd > 0
    stated = '{"input": 0.25, "output": 0.5, "total": 0.75}'
    assert _generation(
        **usage, **model, **{"langfuse.observation.cost_details": stated}
    ).cost_usd == Decimal("0.75")
    parts = '{"input": 0.25, "output": 0.5}'  # no total: the parts' sum
    assert _generation(**{"langfuse.observation.cost_details": parts}).cost_usd == Decimal("0.75")
    # a failed call the wrapper states cost nothing
    nothing = '{"input": 0, "output": 0, "total": 0}'
    assert (
        _generation(**usage, **model, **{"langfuse.observation.cost_details": nothing}).cost_usd
        == 0
    )


def test_langfuse_observed_arguments_and_offered_functions():
    observed = {"langfuse.observation.type": "chain"}
    for sent, read in [
        ('{"args": ["Refund R-7731"], "kwargs": {}}', "Refund R-7731"),
        ('{"args": [], "kwargs": {"order_id": "R-7731"}}', {"order_id": "R-7731"}),
        ('{"args": ["R-7731", 2], "kwargs": {}}', {"args": ["R-7731", 2], "kwargs": {}}),
        ('{"args": ["a"], "kwargs": {}, "other": 1}', {"args": ["a"], "kwargs": {}, "other": 1}),
    ]:
        record = span_record_build(
            trace_external_id="t",
            span_id="s",
            parent_span_id="",
            name="step",
            attributes={**observed, "langfuse.observation.input": sent},
        )
        assert record.input == read
    functions = [{"name": "lookup_order", "parameters": {"type": "object"}}]
    sent = json.dumps({"functions": functions, "messages": []})
    record = _generation(**{"langfuse.observation.input": sent})
    assert record.trace_fields["available_tools"] == functions


def test_langfuse_level_error_fails_an_observation_whose_status_says_nothing():
    # a sender that writes Langfuse's attributes alone: the level and its message
    failed = {
        "langfuse.observation.type": "tool",
        "langfuse.observation.level": "ERROR",
        "langfuse.observation.status_message": ERROR,
    }
    record = span_record_build(
        trace_external_id="t",
        span_id="s",
        parent_span_id="r",
        name="lookup_order",
        attributes=failed,
    )
    assert (record.status, record.error_message) == ("error", ERROR)
    warned = {**failed, "langfuse.observation.level": "WARNING"}
    record = span_record_build(
        trace_external_id="t",
        span_id="s",
        parent_span_id="r",
        name="lookup_order",
        attributes=warned,
    )
    assert record.status == "ok"
