"""Haystack's Agent, recorded (runs/haystack.py): 2.x and 3.x under its own tracer, and under
OpenInference's."""

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
from tests.conformance.support_task import ORDER_SERVICE_DOWN
from tests.conformance.test_frameworks import (
    EXPECTED_CALLS,
    JUDGE_READS,
    ORDER,
    REFUND,
    assert_support_calls,
    judge_reads_after_failure,
)
from tests.factories import UserFactory
from tests.judges.judge_reads import assert_judge_reads
from traces.models import Span, SpanKind
from traces.serialize import trace_span_tree, tree_json

pytestmark = pytest.mark.django_db


# Haystack's Agent under its own tracer (`haystack.component.run` spans, content as
# `haystack.component.input`/`output`) and under OpenInference's Haystack instrumentation
# (`OpenAIChatGenerator.run`, `ToolInvoker.run`): both write ChatMessages as reprs or dicts,
# and run a step's tool calls inside one ToolInvoker span.
HAYSTACK_RUNS = {"haystack": "haystack.component.run", "haystack-openinference": "ToolInvoker.run"}


def assert_haystack_run_read(trace) -> None:
    """What every Haystack setup's successful run reads as: three model calls' usage, stated only
    in each reply's `meta`, counted once; the tools offered; each decision and result once; no
    ChatMessage reprs."""
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.model == "gpt-4o-mini" and trace.cost_usd > Decimal(0)
    assert trace.error_count == 0
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "refund"]
    assert results_handed_back(tree) == []  # each result read once, on its tool step
    reading = tree_json(tree)
    assert "ChatMessage(" not in reading and " object at 0x" not in reading
    assert reading.count("RF-0091") == 3  # the refund's result, the last reply, the answer


@pytest.mark.parametrize("name", HAYSTACK_RUNS)
def test_haystack_agent(api_client_for, name):
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), name)
    # each ToolInvoker span ran one call: read as that call, named, with its arguments
    assert_support_calls(trace)
    tools = Span.objects.filter(trace=trace, kind=SpanKind.TOOL)
    assert {tool.name for tool in tools} == {HAYSTACK_RUNS[name]}
    assert [tool.tool_call_id for tool in tools.order_by("position")] == ["call_1", "call_2"]
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == 3
    assert_haystack_run_read(trace)


@pytest.mark.parametrize(
    "name", [*(f"{run}-tool-error" for run in HAYSTACK_RUNS), "haystack3-tool-error"]
)
def test_haystack_agent_tool_that_raises(api_client_for, name):
    # the first lookup raises; the ToolInvoker (raise_on_failure off, as the Agent sets it;
    # Haystack 3's tool span, with `haystack.tool.error` and the output `{"error": ...}`) hands
    # the model `Failed to invoke Tool ... Error: <the error>`, and it looks up again
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), name)
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.failed) for step in steps] == [
        ("lookup_order", True),
        ("lookup_order", False),
        ("refund", False),
    ]
    failed = Span.objects.get(trace=trace, kind=SpanKind.TOOL, status="error")
    assert failed.error_message.endswith(f"Error: {ORDER_SERVICE_DOWN}")
    assert trace.error_count == 1 and trace.final_answer == support_task.FINAL_ANSWER
    assert (trace.input_tokens, trace.output_tokens) == (4 * PROMPT_TOKENS, 4 * COMPLETION_TOKENS)
    assert_judge_reads(trace, judge_reads_after_failure(ORDER_SERVICE_DOWN))
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "lookup_order", "refund"]
    # the error the model was told is the failed step's: read there, once
    assert results_handed_back(tree) == []
    assert "Traceback" not in tree_json(tree)


# Haystack 3's Agent under the tracer of the opentelemetry-haystack integration (content
# tracing on): one `haystack.agent.step.llm` span a model call and one
# `haystack.agent.step.tool` span a tool call (`haystack.tool.name`, `haystack.tool.error`),
# each with its content as `<span name>.input`/`.output`, under a `haystack.agent.step` a turn.
def test_haystack3_agent(api_client_for):
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "haystack3")
    assert_support_calls(trace)
    tools = Span.objects.filter(trace=trace, kind=SpanKind.TOOL)
    assert {tool.name for tool in tools} == {"haystack.agent.step.tool"}
    llm = Span.objects.filter(trace=trace, kind=SpanKind.LLM)
    assert [span.name for span in llm] == ["haystack.agent.step.llm"] * 3
    root = Span.objects.get(trace=trace, parent_span_id="")
    assert (root.name, root.kind) == ("haystack.agent.run", SpanKind.AGENT)
    assert_haystack_run_read(trace)


def test_haystack3_agent_with_openinference(api_client_for):
    # OpenInference's Haystack instrumentation wraps components, and Haystack 3's Agent runs
    # its tools itself, with no ToolInvoker: no tool spans, the calls live in the messages
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "haystack3-openinference")
    assert not Span.objects.filter(trace=trace, kind=SpanKind.TOOL).exists()
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.inputs, step.output) for step in steps] == [
        (*EXPECTED_CALLS[0], ORDER),
        (*EXPECTED_CALLS[1], REFUND),
    ]
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == 3
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.cost_usd > Decimal(0) and trace.error_count == 0
    assert_support_tools_offered(trace)
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "refund"]
    # each result read once, handed back to the model call after its decision
    assert [(result, error) for _, result, error in results_handed_back(tree)] == [
        (ORDER, False),
        (REFUND, False),
    ]
    assert "ChatMessage(_role=<" not in tree_json(tree)
