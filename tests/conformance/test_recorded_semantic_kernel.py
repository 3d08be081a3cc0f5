"""Semantic Kernel's own GenAI diagnostics, recorded (runs/semantic_kernel.py): spans, and the
messages as log records."""

import json
from decimal import Decimal

import pytest

from accounts.roles import ANNOTATOR
from metrics.steps import tool_steps_from_spans, trace_spans
from tests.conformance import support_task
from tests.conformance.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS
from tests.conformance.harness import tool_calls
from tests.conformance.recorded_reading import (
    send_recorded,
)
from tests.conformance.test_frameworks import (
    EXPECTED_CALLS,
    ORDER,
    REFUND,
    judge_reads_after_failure,
)
from tests.factories import UserFactory
from tests.judges.judge_reads import Expected, assert_judge_reads, reading_steps
from traces.models import Span, SpanKind
from traces.serialize import trace_span_tree, tree_json

pytestmark = pytest.mark.django_db


# Semantic Kernel offers a plugin's functions to the model as `<plugin>-<function>`.
SK_CALLS = [(f"SupportPlugin-{name}", arguments) for name, arguments in EXPECTED_CALLS]


SK_READS = Expected(
    task=support_task.TASK,
    final_answer=support_task.FINAL_ANSWER,
    calls=SK_CALLS,
    results=[ORDER, REFUND],
)


def assert_semantic_kernel_read(trace, expected: Expected, model_calls: int):
    """SK's spans carry the tool calls, usage and the agent's task and answer; each model
    call's messages come only as log records (JSON text bodies) joined to its span."""
    assert trace.task == support_task.TASK
    assert trace.final_answer == support_task.FINAL_ANSWER
    assert trace.agent_name == "support"
    calls = Span.objects.filter(trace=trace, kind=SpanKind.LLM).order_by("position")
    assert calls.count() == model_calls
    assert (trace.input_tokens, trace.output_tokens) == (
        model_calls * PROMPT_TOKENS,
        model_calls * COMPLETION_TOKENS,
    )
    assert [t["name"] for t in trace.context["available_tools"]] == [name for name, _ in SK_CALLS]
    assert_judge_reads(trace, expected)
    steps = [s for s in reading_steps(trace_span_tree(trace)) if s["type"] == SpanKind.LLM]
    decided = [
        [call["tool"] for message in step["output"] for call in message.get("tool_calls") or []]
        for step in steps
    ]
    assert decided == [[name] for name, _ in expected.calls] + [[]]
    assert steps[-1]["output"] == [{"role": "assistant", "text": support_task.FINAL_ANSWER}]
    # SK writes its FinishReason enum's str(): read as the stop it names
    assert [step["finish_reason"] for step in steps] == ["tool_call"] * len(expected.calls) + [
        "completed"
    ]
    # the logger's own attributes (its code location) are no part of a message
    assert "code.file.path" not in json.dumps([call.input for call in calls])


@pytest.mark.parametrize("run", ["semantic-kernel", "semantic-kernel-stream"])
def test_semantic_kernel_chat_completion_agent(api_client_for, run):
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), run)
    calls = tool_calls(trace)
    assert [(name, args) for name, args, _ in calls] == SK_CALLS
    assert [result for *_, result in calls] == [ORDER, REFUND]
    assert trace.error_count == 0 and trace.cost_usd > Decimal(0)
    assert_semantic_kernel_read(trace, SK_READS, model_calls=3)


def test_semantic_kernel_tool_that_raises(api_client_for):
    # the first lookup raises: SK marks its span failed with two exception events (one a
    # traceback) and tells the model the error in its own words; the model looks up again
    trace = send_recorded(
        api_client_for(UserFactory(roles=[ANNOTATOR])), "semantic-kernel-tool-error"
    )
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.failed) for step in steps] == [
        ("SupportPlugin-lookup_order", True),
        ("SupportPlugin-lookup_order", False),
        ("SupportPlugin-refund", False),
    ]
    assert trace.error_count == 1
    expected = judge_reads_after_failure("ConnectionError: order service unavailable", SK_CALLS)
    assert_semantic_kernel_read(trace, expected, model_calls=4)
    assert "Traceback" not in tree_json(trace_span_tree(trace))
