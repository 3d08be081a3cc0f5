"""A failed tool call the model was told of only in what it was handed back reads as failed in
what the judge reads (traces.reading), exactly where the checks read it failed
(metrics.steps, metrics.told_failures): a plain SDK loop traces no tool span, so the result
handed back is the only place a failure lives."""

import json

import pytest

from judges.models import TraceFormat
from judges.prompts import trace_text_budgeted
from metrics.steps import tool_steps_from_spans, trace_spans
from metrics.told_failures import trace_told_failures
from tests.factories import ProjectFactory, SpanFactory, TraceFactory
from tests.judges.judge_reads import calls_marked_failed
from tests.traces.tool_loop import decided_then_handed_back
from traces.models import Trace
from traces.serialize import trace_span_tree, trace_transcript

pytestmark = pytest.mark.django_db

TASK = "Where is A-1?"
DOWN = "Error: order service down"
OPENAI_DECISION = {
    "role": "assistant",
    "tool_calls": [{"id": "c1", "function": {"name": "lookup", "arguments": '{"id": "A-1"}'}}],
}
ANTHROPIC_DECISION = {
    "role": "assistant",
    "content": [{"type": "tool_use", "id": "c1", "name": "lookup", "input": {"id": "A-1"}}],
}


def plain_loop(trace: Trace, handed_back: dict, decision=OPENAI_DECISION, resent=False) -> None:
    """A plain SDK loop under a provider instrumentation: a model call decides `lookup` as
    call c1, no tool span, and the next call is handed `handed_back` for it; with `resent`, a
    third call is handed the whole history again."""
    task = {"role": "user", "content": TASK}
    history = [task, decision, handed_back]
    calls = [([task], [decision]), (history, [{"role": "assistant", "content": "Shipped."}])]
    if resent:
        reply = {"role": "assistant", "content": "Let me check again."}
        calls.insert(1, (history, [reply]))
        calls[2] = ([*history, reply], calls[2][1])
    SpanFactory(trace=trace, span_id="r", name="agent_run", kind="agent", position=0)
    for n, (given, answered) in enumerate(calls, start=1):
        SpanFactory(
            trace=trace,
            span_id=f"m{n}",
            parent_span_id="r",
            name="chat",
            kind="llm",
            input=given,
            output=answered,
            position=n,
        )


def told(content) -> dict:
    return {"role": "tool", "tool_call_id": "c1", "content": content}


def handed_results(tree: dict) -> list[dict]:
    return [
        result
        for step in tree["children"]
        for message in step.get("new_input") or []
        for result in message.get("tool_results") or []
    ]


def checks_failed(trace: Trace) -> tuple[list[bool], int]:
    """What the checks read: each call's failed mark, and the told failures counted."""
    spans = trace_spans(trace)
    steps = [bool(step.failed) for step in tool_steps_from_spans(spans)]
    return steps, trace_told_failures(Trace.objects.get(pk=trace.pk), spans)


def test_a_failure_told_as_text_alone_reads_as_failed():
    trace = TraceFactory(task=TASK)
    plain_loop(trace, told(DOWN))
    (result,) = handed_results(trace_span_tree(trace))
    assert result == {"call_id": "c1", "result": DOWN, "error": True}
    assert f"error for call_id c1: {DOWN}" in trace_transcript(trace)
    text, _ = trace_text_budgeted(trace, TraceFormat.SPAN_TREE)
    assert f'"result": "{DOWN}", "error": true' in text
    # the checks read the same call failed, and count it
    assert checks_failed(trace) == ([True], 1)


@pytest.mark.parametrize("content", [json.dumps({"status": "shipped"}), "Shipped on Monday."])
def test_a_result_that_reads_as_success_is_not_marked(content):
    trace = TraceFactory(task=TASK)
    plain_loop(trace, told(content))
    (result,) = handed_results(trace_span_tree(trace))
    assert "error" not in result
    assert "result for call_id c1:" in trace_transcript(trace)
    assert checks_failed(trace) == ([False], 0)


def test_a_project_that_reads_no_text_errors_sees_no_failure_in_text():
    project = ProjectFactory(slug="no-text-errors", tool_error_text_detection=False)
    trace = TraceFactory(project=project, task=TASK)
    plain_loop(trace, told(DOWN))
    reading = Trace.objects.get(pk=trace.pk)  # its project not loaded: read when wanted
    (result,) = handed_results(trace_span_tree(reading))
    assert result == {"call_id": "c1", "result": DOWN}
    assert "error for call_id" not in trace_transcript(reading)
    assert checks_failed(trace)[1] == 0
    # a structured error still reads as failed there: only text is the project's choice
    flagged = TraceFactory(project=project, task=TASK)
    plain_loop(flagged, told(json.dumps({"error": "order service down"})))
    assert calls_marked_failed(trace_span_tree(flagged)) == ["c1"]
    assert checks_failed(flagged)[1] == 1


def test_the_project_is_read_only_when_a_text_error_needs_it(django_assert_num_queries):
    quiet = TraceFactory(task=TASK)
    plain_loop(quiet, told(json.dumps({"status": "shipped"})))
    spans, reading = trace_spans(quiet), Trace.objects.get(pk=quiet.pk)
    with django_assert_num_queries(0):
        trace_span_tree(reading, spans)
    failing = TraceFactory(task=TASK)
    plain_loop(failing, told(DOWN))
    spans, reading = trace_spans(failing), Trace.objects.get(pk=failing.pk)
    with django_assert_num_queries(1):
        trace_span_tree(reading, spans)


@pytest.mark.parametrize(
    ("decision", "handed_back"),
    [
        (
            ANTHROPIC_DECISION,
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "c1",
                        "content": "order service down",
                        "is_error": True,
                    }
                ],
            },
        ),
        (OPENAI_DECISION, told(json.dumps({"error": "order service down"}))),
    ],
    ids=["anthropic-is-error", "json-error"],
)
def test_a_structured_failure_is_marked_exactly_once(decision, handed_back):
    # the history is handed back again to a later call: the failure is one mark still
    trace = TraceFactory(task=TASK)
    plain_loop(trace, handed_back, decision=decision, resent=True)
    tree = trace_span_tree(trace)
    assert calls_marked_failed(tree) == ["c1"]
    text, _ = trace_text_budgeted(trace, TraceFormat.SPAN_TREE)
    assert text.count('"error": true') == 1
    assert trace_transcript(trace).count("error for call_id c1") == 1
    assert checks_failed(trace) == ([True], 1)


@pytest.mark.parametrize(
    ("output", "handed_back_shown"),
    [(None, []), ("connection refused", [{"call_id": "c1", "result": DOWN}])],
    ids=["told-text-read-on-the-step", "told-text-shown-beside-the-step"],
)
def test_a_failed_tool_span_and_the_message_telling_it_are_one_mark(output, handed_back_shown):
    # a span without a result reads the text handed back as its result; one with its own
    # result leaves the text on the model call that was handed it
    trace = TraceFactory(task=TASK)
    tool_span = {
        "name": "lookup",
        "tool_call_id": "c1",
        "input": {"id": "A-1"},
        "output": output,
        "status": "error",
        "error_message": "ConnectionError: connection refused",
    }
    decided_then_handed_back(trace, tool_span, {"content": DOWN})
    tree = trace_span_tree(trace)
    # the tool step reads the failure; the text handed back for it is no second one
    assert calls_marked_failed(tree) == ["c1"]
    assert handed_results(tree) == handed_back_shown
    transcript = trace_transcript(trace)
    assert transcript.count("TOOL ERROR lookup") == 1
    assert "error for call_id" not in transcript
    assert checks_failed(trace) == ([True], 0)  # the failed span counts it, at ingest


@pytest.mark.parametrize("reads_text", [True, False])
def test_a_tool_span_recording_only_its_call_id_reads_a_text_error_as_the_project_does(
    reads_text,
):
    # AutoGen's own `execute_tool`: no result on the span, the text handed back is its result
    project = ProjectFactory(slug=f"text-{reads_text}", tool_error_text_detection=reads_text)
    trace = TraceFactory(project=project, task=TASK)
    only_id = {"name": "lookup", "tool_call_id": "c1", "input": None, "output": None}
    decided_then_handed_back(trace, only_id, {"content": DOWN})
    tool = trace_span_tree(trace)["children"][1]
    # read once: as the error where the project reads it as one, else as the result
    assert (tool.get("result"), tool.get("error")) == ((None, DOWN) if reads_text else (DOWN, None))
    assert checks_failed(trace)[1] == int(reads_text)
