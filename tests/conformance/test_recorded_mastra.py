"""Mastra's Agent with its OpenTelemetry exporter, recorded (record.py's record_node)."""

from decimal import Decimal

import pytest

from accounts.roles import ANNOTATOR
from metrics.steps import tool_steps_from_spans, trace_spans
from tests.conformance import support_task
from tests.conformance.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS
from tests.conformance.recorded_reading import (
    assert_support_tools_offered,
    models_decided,
    send_recorded,
)
from tests.conformance.test_frameworks import (
    JUDGE_READS,
    assert_support_calls,
    judge_reads_after_failure,
)
from tests.factories import UserFactory
from tests.judges.judge_reads import assert_judge_reads, reading_steps
from traces.models import Span, SpanKind
from traces.reading import merged_members
from traces.serialize import trace_span_tree, tree_json

pytestmark = pytest.mark.django_db


def assert_mastra_read(trace, decided: list[str]):
    """Mastra's Agent through its OpenTelemetry exporter: the task and answer on the agent
    run's own attributes, each model call once (the provider call carrying its turn's whole
    reply, which the call's own span gives as text alone), its usage counted once."""
    calls = Span.objects.filter(trace=trace, kind=SpanKind.LLM)
    assert {call.name for call in calls} == {"chat gpt-4o-mini"}
    model_calls = len(decided) + 1
    assert calls.count() == model_calls
    assert (trace.input_tokens, trace.output_tokens) == (
        model_calls * PROMPT_TOKENS,
        model_calls * COMPLETION_TOKENS,
    )
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert trace.agent_name == "support" and trace.cost_usd > Decimal(0)
    assert_support_tools_offered(trace)
    # each turn's span is its provider call's step: hidden from the reading, kept as sent
    turns = Span.objects.filter(trace=trace, name="agent_step support")
    assert turns.count() == model_calls
    assert set(merged_members(trace)) == {turn.span_id for turn in turns}
    tree = trace_span_tree(trace)
    assert models_decided(tree) == decided
    steps = [step for step in reading_steps(tree) if step["type"] == SpanKind.LLM]
    assert [step.get("finish_reason") for step in steps] == ["tool_call"] * len(decided) + [
        "completed"
    ]
    assert steps[-1]["output"] == [{"role": "assistant", "text": support_task.FINAL_ANSWER}]
    # the system prompt once, on the first call; the turns' preview markers are no message
    assert [step.get("new_input") for step in steps] == [
        [{"role": "system", "text": support_task.SYSTEM_PROMPT}]
    ] + [None] * len(decided)
    assert "[tool" not in tree_json(tree)
    # a turn's tools ran after its model call: beside the call, in step order, not inside it
    assert not [c for step in steps for c in step.get("children") or [] if c["type"] != "custom"]
    (loop,) = [
        step for step in reading_steps(tree) if step["name"] == "model_generation gpt-4o-mini"
    ]
    order = [(c["type"], c.get("tool_calls") or c["name"]) for c in loop["children"]]
    assert [kind for kind, _ in order] == [SpanKind.LLM, SpanKind.TOOL] * len(decided) + [
        SpanKind.LLM
    ]


def test_mastra_agent(api_client_for):
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "mastra")
    assert_support_calls(trace)
    assert trace.error_count == 0
    assert_mastra_read(trace, ["lookup_order", "refund"])
    assert_judge_reads(trace, JUDGE_READS)


def test_mastra_agent_tool_that_raises(api_client_for):
    # the first lookup throws: Mastra fails its tool span with the error's message (an
    # `exception` event, no stack), tells the model, and the model looks the order up again
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "mastra-tool-error")
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.failed) for step in steps] == [
        ("lookup_order", True),
        ("lookup_order", False),
        ("refund", False),
    ]
    assert trace.error_count == 1
    assert_mastra_read(trace, ["lookup_order", "lookup_order", "refund"])
    error = f"order service unavailable for {support_task.ORDER_ID}"
    (failed,) = [s for s in reading_steps(trace_span_tree(trace)) if s.get("error")]
    assert (failed["name"], failed["error"]) == ("lookup_order#1", error)
    assert_judge_reads(trace, judge_reads_after_failure(error))
