"""OpenLIT's auto-instrumentation (`openlit.init`), recorded (runs/openlit.py): the plain OpenAI
tool loop, whole and streamed and with a lookup that fails once, and LangGraph's ReAct agent
under OpenLIT's LangGraph, LangChain and OpenAI instrumentations at once."""

import json
from decimal import Decimal

import pytest

from accounts.roles import ANNOTATOR
from metrics.steps import tool_steps_from_spans, trace_spans
from tests.conformance import support_task
from tests.conformance.fake_openai import COMPLETION_TOKENS, MODEL, PROMPT_TOKENS
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
    judge_reads_after_failure,
)
from tests.factories import UserFactory
from tests.judges.judge_reads import assert_judge_reads, reading_steps
from traces.models import Span, SpanKind, SpanStatus, Trace
from traces.reading import citation_names, traces_merged_members
from traces.serialize import trace_span_tree, trace_transcript, tree_json

pytestmark = pytest.mark.django_db

ERROR = support_task.ORDER_SERVICE_DOWN
# the failed lookup told to the model, then looked up again
RETRIED = judge_reads_after_failure(ERROR)


@pytest.fixture
def api(api_client_for):
    return api_client_for(UserFactory(roles=[ANNOTATOR]))


def run_trace(api, name: str, logs_first: bool = False) -> Trace:
    """The recorded run's trace. OpenLIT's LangGraph instrumentation traces building the graph
    (`create_agent default`) in a trace of its own, before the run's."""
    try:
        return send_recorded(api, name, logs_first=logs_first)
    except Trace.MultipleObjectsReturned:
        return Trace.objects.exclude(task="").get()


def assert_model_calls_read_as_calls(trace, calls: int):
    """Each chat span names the first tool call it decided (`gen_ai.tool.name`,
    `gen_ai.tool.call.id`, `gen_ai.tool.args`): read as the model call it is, its messages its
    content, and counted once with its tokens."""
    spans = Span.objects.filter(trace=trace, kind=SpanKind.LLM)
    assert spans.count() == calls
    assert {(span.tool_name, span.tool_call_id) for span in spans} == {("", "")}
    assert all(isinstance(span.input, list) for span in spans)
    assert (trace.input_tokens, trace.output_tokens) == (
        calls * PROMPT_TOKENS,
        calls * COMPLETION_TOKENS,
    )
    assert trace.model == MODEL and trace.cost_usd > Decimal(0)
    assert_support_tools_offered(trace)


def assert_reads_no_plumbing(trace):
    """The HTTP request under each model call (OpenTelemetry's httpx instrumentation, which
    `openlit.init` turns on) is no step of the reading; the system prompt, which OpenLIT sends
    in the messages and as `gen_ai.system_instructions`, shows once."""
    reading = tree_json(trace_span_tree(trace))
    names = [step["name"] for step in reading_steps(trace_span_tree(trace))]
    assert not [name for name in names if name.startswith("POST")], names
    assert trace_transcript(trace).count(support_task.SYSTEM_PROMPT) == 1
    assert reading.count(support_task.SYSTEM_PROMPT) == 1


@pytest.mark.parametrize(
    ("run", "logs_first"),
    [("openlit-openai", False), ("openlit-openai-stream", False), ("openlit-openai-stream", True)],
)
def test_openlit_openai_tool_loop(api, run, logs_first):
    # `@openlit.trace` around the plain tool loop: its span keeps the arguments' repr and the
    # returned text; each chat span holds its messages, and its details are logged beside it
    trace = run_trace(api, run, logs_first)
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert_model_calls_read_as_calls(trace, 3)
    assert trace.error_count == 0
    assert_judge_reads(trace, JUDGE_READS)
    assert_reads_no_plumbing(trace)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "refund"]
    assert results_handed_back(tree) == [("call_1", ORDER, False), ("call_2", REFUND, False)]
    assert_checks_read_support_calls(trace)
    # streamed, a call's details are logged once the stream is read, in the caller's span:
    # not read as the caller's call (no model, no tokens there), only its tools offered
    root = Span.objects.get(trace=trace, parent_span_id="")
    assert (root.model, root.input_tokens, root.output_tokens) == ("", 0, 0)


def test_openlit_streamed_details_logged_in_the_callers_span():
    # what the recording shows: the premise of the test above
    fixture = json.loads((RECORDED / "openlit-openai-stream.json").read_text())
    spans = [
        span
        for resource in fixture["request"]["resourceSpans"]
        for scope in resource["scopeSpans"]
        for span in scope["spans"]
    ]
    root = next(span["spanId"] for span in spans if not span.get("parentSpanId"))
    logged = [
        record["spanId"]
        for resource in fixture["logs"]["resourceLogs"]
        for scope in resource["scopeLogs"]
        for record in scope["logRecords"]
    ]
    assert logged == [root] * 3


def test_openlit_openai_tool_failing_once(api):
    # the loop tells the model `Error: order service unavailable`; no tool span: the calls and
    # results live in the model calls' messages
    trace = run_trace(api, "openlit-openai-tool-error")
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert_model_calls_read_as_calls(trace, 4)
    # told by its text alone, the failed lookup reads as failed, as the checks read it
    assert_judge_reads(trace, judge_reads_after_failure(ERROR, failed_call="call_1"))
    assert_reads_no_plumbing(trace)
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.inputs, step.failed) for step in steps] == [
        (*EXPECTED_CALLS[0], True),
        (*EXPECTED_CALLS[0], False),
        (*EXPECTED_CALLS[1], False),
    ]
    assert steps[0].output == f"Error: {ERROR}"
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "lookup_order", "refund"]
    assert [(call_id, error) for call_id, _, error in results_handed_back(tree)] == [
        ("call_1", True),
        ("call_2", False),
        ("call_3", False),
    ]


@pytest.mark.parametrize("run", ["openlit-langgraph", "openlit-langgraph-tool-error"])
def test_openlit_langgraph(api, run):
    # OpenLIT's LangGraph instrumentation (the workflow and each node) and its LangChain one
    # (each node again, the chat model, each tool) nest around the same calls: the workflow and
    # node spans repeat the calls' usage, which counts once
    fails = run.endswith("tool-error")
    trace = run_trace(api, run)
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert_model_calls_read_as_calls(trace, 4 if fails else 3)
    assert_judge_reads(trace, RETRIED if fails else JUDGE_READS)
    assert_reads_no_plumbing(trace)
    # the tool spans' arguments are their dict's repr, their results the ToolMessage's str():
    # read as the data they are
    tools = Span.objects.filter(trace=trace, kind=SpanKind.TOOL).order_by("position")
    expected = [(*EXPECTED_CALLS[0], None)] if fails else []
    expected += [(*EXPECTED_CALLS[0], ORDER), (*EXPECTED_CALLS[1], REFUND)]
    assert [(span.tool_name, span.input, span.output) for span in tools] == expected
    assert [span.status == SpanStatus.ERROR for span in tools] == [True] * fails + [False] * 2
    assert trace.error_count == int(fails)
    if fails:
        assert tools[0].error_message == ERROR
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.inputs, step.failed) for step in steps] == [
        (name, args, result is None) for name, args, result in expected
    ]
    assert [step.output for step in steps if not step.failed] == [ORDER, REFUND]
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order"] * (1 + fails) + ["refund"]
    if fails:
        # the failed span names the call by LangChain's run id, and the next chat span is
        # handed the ToolNode's text without a call id: that text, which tells the error, is
        # read once, as the failed step's error
        (failed,) = [step for step in reading_steps(tree) if step.get("error")]
        told = f"Error: ConnectionError('{ERROR}')\n Please fix your mistakes."
        assert (failed["name"], failed["error"], failed.get("result")) == (
            "lookup_order#1",
            told,
            None,
        )
        assert tree_json(tree).count(ERROR) == 1 and trace_transcript(trace).count(ERROR) == 1


@pytest.mark.parametrize("run", ["openlit-langgraph", "openlit-langgraph-tool-error"])
def test_openlit_langgraph_reads_each_node_once(api, run):
    # each graph node is two sibling spans `invoke_agent agent`, one from OpenLIT's LangChain
    # instrumentation (around the node's model call) and one from its LangGraph one (the
    # node's messages), the one inside the other's time: one step, labelled and cited as one
    calls = 4 if run.endswith("tool-error") else 3
    trace = run_trace(api, run)
    spans = list(trace.spans.order_by("position", "pk"))
    scopes = [s.attributes["otel.scope.name"] for s in spans if s.name == "invoke_agent agent"]
    assert sorted(scopes) == sorted(
        [f"openlit.instrumentation.{library}" for library in ("langchain", "langgraph")] * calls
    )
    tree = trace_span_tree(trace)
    nodes = [step for step in reading_steps(tree) if step["name"].startswith("invoke_agent")]
    assert [node["name"] for node in nodes] == [
        f"invoke_agent agent#{n}" for n in range(1, 1 + calls)
    ]
    assert [[child["type"] for child in node["children"]] for node in nodes] == [["llm"]] * calls
    cited = {name for _, name in citation_names(spans, traces_merged_members([trace]))}
    assert f"invoke_agent agent#{calls}" in cited and f"invoke_agent agent#{calls + 1}" not in cited
    # the node's messages, read into its one step, show nothing the model calls did not
    assert tree_json(tree).count(support_task.TASK) == 1
