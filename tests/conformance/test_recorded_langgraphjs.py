"""LangGraph.js's createReactAgent traced by OpenInference's JS LangChain instrumentation,
recorded (record.py's record_node)."""

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


def assert_langgraphjs_read(trace, decided: list[str]):
    """Each model call once with its usage, the task and answer, the offered tools; no
    LangChain serialization (`lc` constructors) left in the reading; the graph's node steps do
    not repeat the decisions and results of the steps inside them."""
    calls = Span.objects.filter(trace=trace, kind=SpanKind.LLM)
    model_calls = len(decided) + 1
    assert {call.name for call in calls} == {"ChatOpenAI"} and calls.count() == model_calls
    assert (trace.input_tokens, trace.output_tokens) == (
        model_calls * PROMPT_TOKENS,
        model_calls * COMPLETION_TOKENS,
    )
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert trace.agent_name == "support"
    assert_support_tools_offered(trace)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == decided
    text = tree_json(tree)
    assert '"lc"' not in text and "ToolMessage" not in text and "SystemMessage" not in text
    # the prompt template's output shows the system prompt once; later templates add nothing
    # and read as no step
    prompts = [step for step in reading_steps(tree) if step["name"].startswith("prompt")]
    assert [step.get("output") for step in prompts] == [
        [{"role": "system", "text": support_task.SYSTEM_PROMPT}]
    ]
    nodes = [s for s in reading_steps(tree) if s["name"].split("#")[0] in ("agent", "tools")]
    assert len(nodes) == 2 * len(decided) + 1 and not [s for s in nodes if "output" in s]


def test_langgraphjs_agent(api_client_for):
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "langgraphjs")
    assert_support_calls(trace)
    assert trace.error_count == 0
    assert_langgraphjs_read(trace, ["lookup_order", "refund"])
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.inputs, step.output, step.failed) for step in steps] == [
        ("lookup_order", {"order_id": support_task.ORDER_ID}, ORDER, False),
        ("refund", {"order_id": support_task.ORDER_ID, "amount": 42.5}, REFUND, False),
    ]
    assert_judge_reads(trace, JUDGE_READS)


def test_langgraphjs_agent_tool_that_raises(api_client_for):
    # the first lookup throws: the tool span fails with the message and the JS stack, the
    # ToolNode hands the model "Error: ... Please fix your mistakes." and it looks up again
    trace = send_recorded(api_client_for(UserFactory(roles=[ANNOTATOR])), "langgraphjs-tool-error")
    steps = tool_steps_from_spans(trace_spans(trace))
    lookup = {"order_id": support_task.ORDER_ID}
    assert [(step.tool, step.inputs, step.output, step.failed) for step in steps] == [
        ("lookup_order", lookup, None, True),
        ("lookup_order", lookup, ORDER, False),
        ("refund", {"order_id": support_task.ORDER_ID, "amount": 42.5}, REFUND, False),
    ]
    assert trace.error_count == 1
    assert_langgraphjs_read(trace, ["lookup_order", "lookup_order", "refund"])
    error = f"order service unavailable for {support_task.ORDER_ID}"
    tree = trace_span_tree(trace)
    (failed,) = [s for s in reading_steps(tree) if s.get("error")]
    # what the model was told, which tells the error: once, as the failed step's error
    told = f"Error: {error}\n Please fix your mistakes."
    assert (failed["name"], failed["error"], failed.get("result")) == ("lookup_order#1", told, None)
    assert tree_json(tree).count(error) == 1
    assert " at " not in tree_json(tree)
    assert_judge_reads(trace, judge_reads_after_failure(error))
