"""traces.serialize on spans built by hand: what frameworks report beside a run that is no news
to the judge reads once or not at all, and nothing they said is lost: a failed call whose
result tells its error, steps that say nothing beside calls, a node two instrumentations
each reported, an agent step that answers its state."""

import json
from datetime import UTC, datetime, timedelta

import pytest

from metrics.steps import tool_steps_from_spans, trace_spans
from tests.factories import SpanFactory, TraceFactory
from tests.judges.judge_reads import reading_steps
from traces.reading import citation_names
from traces.serialize import trace_span_tree, trace_transcript, tree_json

pytestmark = pytest.mark.django_db

TASK = "Where is A-1?"
ANSWER = "A-1 ships tomorrow."
ERROR = "order service down"
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def _at(start_ms: int, end_ms: int) -> dict:
    return {
        "started_at": T0 + timedelta(milliseconds=start_ms),
        "ended_at": T0 + timedelta(milliseconds=end_ms),
    }


def _empty(trace, span_id: str, parent: str, position: int, kind: str = "custom", **fields):
    """A framework span: named by its id unless `name` is given, saying only what `fields` say."""
    fields = {"name": span_id, "input": None, "output": None, **fields}
    return SpanFactory(
        trace=trace,
        span_id=span_id,
        parent_span_id=parent,
        kind=kind,
        tool_name="",
        position=position,
        **fields,
    )


def _trace():
    trace = TraceFactory(task=TASK, final_answer=ANSWER)
    _empty(trace, "r", "", 0, kind="agent", name="run")
    return trace


def _chat(trace, span_id: str, parent: str, position: int, **fields):
    decision = {
        "role": "assistant",
        "tool_calls": [{"id": "c1", "function": {"name": "lookup", "arguments": '{"id": "A-1"}'}}],
    }
    fields.setdefault("input", [{"role": "user", "content": TASK}])
    fields.setdefault("output", [decision])
    return SpanFactory(
        trace=trace,
        span_id=span_id,
        parent_span_id=parent,
        name="chat",
        kind="llm",
        tool_name="",
        position=position,
        **fields,
    )


def _failed_lookup(trace, output, error_message: str = ERROR):
    _chat(trace, "m", "r", 1)
    SpanFactory(
        trace=trace,
        span_id="t",
        parent_span_id="r",
        name="lookup",
        kind="tool",
        tool_name="lookup",
        tool_call_id="c1",
        input={"id": "A-1"},
        output=output,
        status="error",
        error_message=error_message,
        position=2,
    )


def _tool_step(trace) -> dict:
    return next(s for s in reading_steps(trace_span_tree(trace)) if s["type"] == "tool")


def _checks_read(trace) -> list[tuple]:
    return [(s.tool, s.inputs, s.failed) for s in tool_steps_from_spans(trace_spans(trace))]


HANDED_BACK = f"Error: ConnectionError('{ERROR}')\n Please fix your mistakes."


def test_a_failed_calls_result_that_tells_its_error_reads_as_its_error_once():
    # LangGraph's ToolNode hands the model the exception in its own words: the step's error
    # reads as that text, which holds what the span's error said, and no result beside it
    trace = _trace()
    _failed_lookup(trace, HANDED_BACK)
    step = _tool_step(trace)
    assert (step.get("result"), step["error"]) == (None, HANDED_BACK)
    transcript = trace_transcript(trace)
    assert transcript.count(ERROR) == 1 and tree_json(trace_span_tree(trace)).count(ERROR) == 1
    assert "[step 3] TOOL ERROR lookup: Error: ConnectionError" in transcript
    assert "TOOL RESULT" not in transcript
    assert _checks_read(trace) == [("lookup", {"id": "A-1"}, True)]


@pytest.mark.parametrize(
    ("output", "error_message"),
    [
        (ERROR, ERROR),  # AutoGen: the exception's message, as the result and the error
        (ERROR, f"ToolRetryError: {ERROR}"),  # the error after the exception's class
        ({"error": ERROR}, ERROR),  # Haystack and LlamaIndex wrap it
        (f'{{"error": "{ERROR}"}}', ERROR),  # as JSON text
    ],
)
def test_a_failed_calls_result_that_only_repeats_its_error_is_not_read(output, error_message):
    trace = _trace()
    _failed_lookup(trace, output, error_message)
    step = _tool_step(trace)
    assert (step.get("result"), step["error"]) == (None, error_message)
    assert trace_transcript(trace).count(ERROR) == 1
    assert _checks_read(trace) == [("lookup", {"id": "A-1"}, True)]


@pytest.mark.parametrize(
    "output",
    [
        {"status": "unknown", "retry_after": 30},  # data: read as it is
        "The order service is in maintenance until noon.",  # says something else
        "",
    ],
)
def test_a_failed_calls_result_that_says_more_than_its_error_reads_beside_it(output):
    trace = _trace()
    _failed_lookup(trace, output)
    step = _tool_step(trace)
    assert (step["result"], step["error"]) == (output, ERROR)


def test_a_result_handed_back_later_folds_into_the_failed_step_that_recorded_none():
    # a tool span that records only its failure: the text the model is handed next completes
    # it, and where that text tells the error, it reads as the error once
    trace = _trace()
    _failed_lookup(trace, None)
    _chat(trace, "m2", "r", 3, output=[{"role": "assistant", "content": ANSWER}])
    trace.spans.filter(span_id="m2").update(
        input=[
            {"role": "user", "content": TASK},
            {"role": "tool", "tool_call_id": "c1", "content": HANDED_BACK},
        ]
    )
    tree = trace_span_tree(trace)
    step = _tool_step(trace)
    assert (step.get("result"), step["error"]) == (None, HANDED_BACK)
    assert tree_json(tree).count(ERROR) == 1


def test_steps_that_say_nothing_beside_steps_that_hold_calls_are_no_steps():
    # a LangGraph node under Langfuse's LangChain handler: `call_model` (nothing in, nothing
    # out) beside the chain that holds the model call, and a `Prompt` that gave nothing new
    # beside the call itself
    trace = _trace()
    _empty(trace, "node", "r", 1, kind="agent", name="agent")
    _empty(trace, "call_model", "node", 2)
    _empty(trace, "sequence", "node", 3)
    _empty(trace, "Prompt", "sequence", 4)
    _chat(trace, "m", "sequence", 5)
    _empty(trace, "noted", "node", 6, output={"route": "tools"})
    _empty(trace, "failed", "node", 7, status="error", error_message="edge failed")
    names = [step["name"] for step in reading_steps(trace_span_tree(trace))]
    assert names == ["run", "agent", "sequence", "chat", "noted", "failed"]


def test_steps_that_say_nothing_stay_where_no_step_holds_a_call():
    # nothing beside them to read instead: the names are all the trace tells
    trace = _trace()
    _empty(trace, "plan", "r", 1)
    _empty(trace, "handoff", "r", 2, kind="agent")
    names = [step["name"] for step in reading_steps(trace_span_tree(trace))]
    assert names == ["run", "plan", "handoff"]


LANGCHAIN, LANGGRAPH = "openlit.instrumentation.langchain", "openlit.instrumentation.langgraph"


def _node_twice(trace, n: int, position: int, start_ms: int, langgraph_input=None, **twin):
    """A graph node reported by two instrumentations: the LangChain span around the model
    call, then the LangGraph span inside its time with the node's messages."""
    _empty(
        trace,
        f"lc{n}",
        "r",
        position,
        kind="agent",
        name="invoke_agent agent",
        attributes={"otel.scope.name": LANGCHAIN},
        **_at(start_ms, start_ms + 50),
    )
    _empty(
        trace,
        f"lg{n}",
        "r",
        position + 1,
        kind="agent",
        name="invoke_agent agent",
        attributes={"otel.scope.name": twin.pop("scope", LANGGRAPH)},
        input=langgraph_input,
        **{**_at(start_ms + 1, start_ms + 49), **twin},
    )
    _chat(trace, f"m{n}", f"lc{n}", position + 2, **_at(start_ms + 2, start_ms + 40))


def test_a_node_two_instrumentations_reported_reads_as_one_step():
    trace = _trace()
    told = [{"role": "user", "content": "Use the fast lane."}]
    _node_twice(trace, 1, 1, 0, langgraph_input=told)
    _node_twice(trace, 2, 4, 100)
    tree = trace_span_tree(trace)
    nodes = [s for s in reading_steps(tree) if s["name"].startswith("invoke_agent")]
    # numbered by their first span, each holding its call, the second span's input read in
    assert [(n["step"], n["name"]) for n in nodes] == [
        (2, "invoke_agent agent#1"),
        (5, "invoke_agent agent#2"),
    ]
    assert [[c["name"] for c in n["children"]] for n in nodes] == [["chat#1"], ["chat#2"]]
    assert nodes[0]["input"] == [{"role": "user", "text": "Use the fast lane."}]
    spans = list(trace.spans.order_by("position"))
    cited = [name for _, name in citation_names(spans)]
    assert "invoke_agent agent#2" in cited and "invoke_agent agent#3" not in cited
    assert "step 3" not in cited  # the second report gives its place to the first


@pytest.mark.parametrize(
    "twin",
    [
        {"scope": LANGCHAIN},  # one instrumentation: two runs of the node
        {"scope": ""},  # no scope said: nothing tells them apart
        _at(60, 90),  # after the first ended: another run
        {"output": [{"role": "assistant", "content": "Routed."}]},  # both say an output
    ],
)
def test_sibling_steps_of_one_name_stay_two_unless_twins(twin):
    trace = _trace()
    told = [{"role": "user", "content": "Use the fast lane."}]
    _node_twice(trace, 1, 1, 0, langgraph_input=told, **twin)
    if "output" in twin:
        trace.spans.filter(span_id="lc1").update(output=[{"role": "assistant", "content": "On."}])
    names = [s["name"] for s in reading_steps(trace_span_tree(trace))]
    assert names.count("invoke_agent agent#1") == 1 and names.count("invoke_agent agent#2") == 1


@pytest.mark.parametrize(
    "output",
    [[{"role": "assistant", "content": "completed"}], "completed", "done"],
)
def test_an_agent_step_that_answers_a_stop_reason_reads_it_as_how_it_ended(output):
    # CrewAI's agent-executor flow answers its state after its model call answered
    trace = _trace()
    _empty(trace, "executor", "r", 1, kind="agent", output=output)
    _chat(trace, "m", "executor", 2, output=[{"role": "assistant", "content": ANSWER}])
    step = next(s for s in reading_steps(trace_span_tree(trace)) if s["name"] == "executor")
    assert "output" not in step and step["finish_reason"] in ("completed", "done")
    transcript = trace_transcript(trace)
    assert f"[step 2] executor STOPPED: {step['finish_reason']}" in transcript
    assert "ASSISTANT (executor)" not in transcript


@pytest.mark.parametrize(
    ("kind", "output"),
    [
        ("agent", [{"role": "assistant", "content": "Completed the refund."}]),
        ("agent", [{"role": "user", "content": "completed"}]),
        ("agent", "pending"),  # no stop reason
        ("custom", "success"),  # a plain step's value, not a run's end
    ],
)
def test_other_step_outputs_read_as_outputs(kind, output):
    trace = _trace()
    _empty(trace, "executor", "r", 1, kind=kind, output=output)
    _chat(trace, "m", "executor", 2, output=[{"role": "assistant", "content": ANSWER}])
    step = next(s for s in reading_steps(trace_span_tree(trace)) if s["name"] == "executor")
    assert "output" in step and "finish_reason" not in step


@pytest.mark.parametrize(
    ("handed_back", "reads"),
    [
        (HANDED_BACK, (None, HANDED_BACK)),  # tells the error: read on the failed step, once
        ("Try again later.", (None, ERROR)),  # tells something else: read where it was handed
    ],
)
def test_a_failure_handed_back_as_text_without_its_call_id_reads_on_the_failed_step(
    handed_back, reads
):
    # OpenLIT's LangChain instrumentation names a failed call by its run id, not the call id
    # the model decided, and its chat spans hand tool messages back as text without an id
    trace = _trace()
    _failed_lookup(trace, None)
    trace.spans.filter(span_id="t").update(tool_call_id="01a2526a-4b14-7623-a181-242bafd6a9e1")
    history = [{"role": "user", "content": TASK}, {"role": "tool", "content": handed_back}]
    _chat(trace, "m2", "r", 3, input=history, output=[{"role": "assistant", "content": ANSWER}])
    tree = trace_span_tree(trace)
    step = _tool_step(trace)
    assert (step.get("result"), step["error"]) == reads
    assert tree_json(tree).count(json.dumps(handed_back)[1:-1]) == 1
    assert trace_transcript(trace).count(ERROR) == 1
    assert _checks_read(trace) == [("lookup", {"id": "A-1"}, True)]
