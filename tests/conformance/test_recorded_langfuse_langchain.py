"""LangGraph traced by the Langfuse SDK's LangChain integration, recorded
(runs/langfuse_langchain.py): `create_react_agent` on ChatOpenAI with Langfuse's
`CallbackHandler` in the run's config, invoked whole, streamed, and with a lookup that fails
once; and the shapes of its observations those runs do not send, on spans built by hand."""

import json

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
from tests.conformance.runs.langfuse import USER_ID
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
from traces.ingest.records import span_record_build
from traces.models import Span, SpanKind, SpanStatus
from traces.serialize import trace_span_tree, trace_transcript, tree_json
from traces.stop_reasons import reply_finish_reason

pytestmark = pytest.mark.django_db

ERROR = support_task.ORDER_SERVICE_DOWN
# What LangGraph's ToolNode hands the model for the failed lookup (`handle_tool_errors`).
HANDED_BACK = f"Error: ConnectionError('{ERROR}')\n Please fix your mistakes."


@pytest.fixture
def agent_api(api_client_for):
    return api_client_for(UserFactory(roles=[ANNOTATOR]))


def tool_steps(tree: dict) -> list[tuple]:
    """(tool, call id, result, error) of each tool step of a reading."""
    return [
        (step["name"].partition("#")[0], step.get("call_id"), step.get("result"), step.get("error"))
        for step in reading_steps(tree)
        if step["type"] == SpanKind.TOOL
    ]


def assert_reads_no_empty_steps(tree: dict):
    """Each node's `call_model` chain and each later `Prompt` (whose system prompt the first
    showed) say nothing and hold nothing: no step of the reading."""
    names = [step["name"].partition("#")[0] for step in reading_steps(tree)]
    assert "call_model" not in names and names.count("Prompt") == 1, names
    quiet = {"step", "name", "type", "span_name"}
    assert not [step for step in reading_steps(tree) if step.keys() <= quiet], names


def assert_reads_no_graph_state(trace):
    """The graph's state, which every node's and edge's observation carries whole (its
    messages with their LangChain bookkeeping), is not what the judge reads: each conditional
    edge's `Send` reads as the node it sends to, no step repeats the tool results its tool
    step showed, and the system prompt and the task show once."""
    tree = trace_span_tree(trace)
    reading, transcript = tree_json(tree), trace_transcript(trace)
    for said in ("response_metadata", "additional_kwargs", "tool_call_with_context", '"arg"'):
        assert said not in reading and said not in transcript, said
    edges = [step for step in reading_steps(tree) if step["name"].startswith("should_continue")]
    assert [step["output"] for step in edges[:-1]] == [["Send(node='tools')"]] * (len(edges) - 1)
    assert results_handed_back(tree) == []
    for text in (support_task.SYSTEM_PROMPT, support_task.TASK):
        assert reading.count(text) == 1 and transcript.count(text) == 1
    return reading


@pytest.mark.parametrize("run", ["langfuse-langgraph", "langfuse-langgraph-stream"])
def test_langfuse_langchain_handler_on_a_react_agent(agent_api, run):
    # chain observations for the graph, its nodes and edges, `agent` for the agent node, one
    # `generation` per model call and one `tool` per tool, each value JSON text
    trace = send_recorded(agent_api, run)
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    root = Span.objects.get(trace=trace, parent_span_id="")
    assert (root.kind, root.name) == (SpanKind.CUSTOM, "LangGraph")
    calls = Span.objects.filter(trace=trace, kind=SpanKind.LLM)
    assert [call.model for call in calls] == [MODEL] * 3
    # usage by type on each generation; the chains' outputs repeat it inside their messages
    # and count nothing
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.cost_usd > 0 and trace.error_count == 0
    # the tools the handler appends to each generation's messages as `role: tool` entries are
    # the tools offered, not messages of the conversation
    assert_support_tools_offered(trace)
    first = calls.order_by("started_at")[0]
    assert [message["role"] for message in first.input] == ["system", "user"]
    assert trace.context["user_id"] == USER_ID
    # the generations keep no finish reason: the graph's last reply, in its output, states it
    assert trace.stop_reason == "stop"
    assert_judge_reads(trace, JUDGE_READS)
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "refund"]
    # each tool's result is the ToolMessage's fields: read as its content, under its call id
    assert tool_steps(tree) == [
        ("lookup_order", "call_1", ORDER, None),
        ("refund", "call_2", REFUND, None),
    ]
    reading = assert_reads_no_graph_state(trace)
    assert_reads_no_empty_steps(tree)
    assert len(reading) < 2700, len(reading)
    assert_checks_read_support_calls(trace)


def test_langfuse_langchain_handler_tool_failing_once(agent_api):
    # the lookup raises once: the handler ends its tool observation at level ERROR with the
    # message; the ToolNode hands the model the error as the tool's message and it retries
    trace = send_recorded(agent_api, "langfuse-langgraph-tool-error")
    failed = Span.objects.get(trace=trace, kind=SpanKind.TOOL, status=SpanStatus.ERROR)
    assert (failed.tool_name, failed.tool_call_id, failed.error_message, failed.output) == (
        "lookup_order",
        "call_1",
        ERROR,
        None,
    )
    assert (trace.error_count, trace.stop_reason) == (1, "stop")
    assert (trace.input_tokens, trace.output_tokens) == (4 * PROMPT_TOKENS, 4 * COMPLETION_TOKENS)
    assert_judge_reads(trace, judge_reads_after_failure(ERROR))
    tree = trace_span_tree(trace)
    assert models_decided(tree) == ["lookup_order", "lookup_order", "refund"]
    # the failed call reads what the model was handed for it, which tells its error: as its
    # error, once (not beside it as its result)
    assert tool_steps(tree) == [
        ("lookup_order", "call_1", None, HANDED_BACK),
        ("lookup_order", "call_2", ORDER, None),
        ("refund", "call_3", REFUND, None),
    ]
    failed_step = next(s for s in reading_steps(tree) if s.get("call_id") == "call_1")
    assert json.dumps(failed_step).count(ERROR) == 1, failed_step
    reading, transcript = assert_reads_no_graph_state(trace), trace_transcript(trace)
    assert reading.count(ERROR) == 1 and transcript.count(ERROR) == 1
    assert "TOOL ERROR lookup_order#1: " + HANDED_BACK in transcript
    assert "TOOL RESULT lookup_order#1" not in transcript
    assert_reads_no_empty_steps(tree)
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.inputs, step.failed) for step in steps] == [
        (*EXPECTED_CALLS[0], True),
        (*EXPECTED_CALLS[0], False),
        (*EXPECTED_CALLS[1], False),
    ]


def _observation(kind: str, **attributes):
    return span_record_build(
        trace_external_id="t",
        span_id="s",
        parent_span_id="r",
        name=kind,
        attributes={"langfuse.observation.type": kind, **attributes},
    )


def test_langfuse_langchain_tools_offered_in_any_format_and_history_kept():
    # an Anthropic model's tools as the handler normalizes them, or left as they came
    lookup = {"name": "lookup_order", "input_schema": {"type": "object"}}
    history = [
        {"role": "user", "content": support_task.TASK},
        # a tool result names its call, even one whose content is an object
        {"role": "tool", "content": {"amount": 42.5}, "tool_call_id": "call_1"},
    ]
    sent = [*history, {"role": "tool", "content": lookup}]
    record = _observation("generation", **{"langfuse.observation.input": json.dumps(sent)})
    assert record.input == history
    assert record.trace_fields["available_tools"] == [lookup]
    # a history that ends on a tool's result offers nothing
    record = _observation("generation", **{"langfuse.observation.input": json.dumps(history)})
    assert (record.input, record.trace_fields) == (history, {})


def test_langfuse_langchain_tool_message_read_as_its_content():
    message = {
        "content": json.dumps(ORDER),
        "type": "tool",
        "name": "lookup_order",
        "tool_call_id": "call_1",
        "artifact": None,
    }
    output = {"langfuse.observation.output": json.dumps({**message, "status": "success"})}
    assert _observation("tool", **output).output == ORDER
    # a ToolMessage a tool returned with status error fails its step
    errored = {**message, "content": ERROR, "status": "error"}
    record = _observation("tool", **{"langfuse.observation.output": json.dumps(errored)})
    assert (record.output, record.status) == ({"error": ERROR}, SpanStatus.ERROR)
    # a value that only says `type: tool` is left as it is
    plain = {"type": "tool", "content": "x"}
    record = _observation("tool", **{"langfuse.observation.output": json.dumps(plain)})
    assert record.output == plain


def test_reply_finish_reason_of_a_langchain_run():
    reply = {"type": "ai", "content": "", "response_metadata": {"finish_reason": "length"}}
    assert reply_finish_reason({"messages": [{"type": "human", "content": "x"}, reply]}) == "length"
    assert reply_finish_reason([reply]) == "length"
    for said in ({"messages": []}, {"messages": [{"type": "ai"}]}, "stop", None):
        assert reply_finish_reason(said) == ""
