"""A model call or an agent iteration reported by a span per lifecycle event is one step, as a
tool call is (test_one_call_one_step): one LLM span with its input, reply and usage, counted
once; and the judge reads each merged call once, numbered as it cites it."""

import json

import pytest

from judges.citations import citations_resolve
from judges.models import Rubric
from judges.prompts import prompt_render
from tests.judges.judge_reads import reading_steps
from tests.traces.shape_spans import Recorder, send
from traces.models import Span, SpanKind, SpanStatus, Trace
from traces.reading import citation_names, traces_merged_members
from traces.serialize import trace_span_tree

pytestmark = pytest.mark.django_db

ASKED = [{"role": "user", "content": "Is it raining in Lyon?"}]
ANSWERED = [{"role": "assistant", "content": "No rain in Lyon today."}]
MODEL = {"openinference.span.kind": "LLM", "llm.model_name": "gpt-4o-mini"}
USAGE = {"llm.token_count.prompt": 120, "llm.token_count.completion": 30}


def _model_call(recorder, n=1, *, usage_on="success", outcome="success"):
    """BeeAI's shape: `backend.openai.chat.start-N` with the input, the outcome event with the
    reply, `finish-N` empty; usage where `usage_on` says."""
    events = {
        "start": {"input.value": json.dumps(ASKED)},
        outcome: {"output.value": json.dumps(ANSWERED)},
        "finish": {},
    }
    for event, attributes in events.items():
        extra = USAGE if event == usage_on else {}
        with recorder.span(f"backend.openai.chat.{event}-{n}", {**MODEL, **attributes, **extra}):
            pass


def _sent(recorder) -> Trace:
    send(recorder.spans())
    return Trace.objects.get()


def test_a_model_calls_lifecycle_spans_are_one_model_call_counted_once():
    recorder = Recorder()
    with recorder.span("agent run", {"gen_ai.operation.name": "invoke_agent"}):
        _model_call(recorder, 1)
        _model_call(recorder, 2)
    trace = _sent(recorder)
    calls = list(Span.objects.filter(kind=SpanKind.LLM).order_by("position"))
    # the span with the reply and usage carries the call, with the start's input
    assert [c.name for c in calls] == [
        "backend.openai.chat.success-1",
        "backend.openai.chat.success-2",
    ]
    assert calls[0].input == ASKED and calls[0].output == ANSWERED
    assert Span.objects.filter(kind=SpanKind.CUSTOM).count() == 4  # the others, kept as sent
    assert (trace.input_tokens, trace.output_tokens) == (240, 60)
    # the judge reads two model calls, each once
    tree = trace_span_tree(trace)
    assert [(n["step"], n["name"]) for n in reading_steps(tree)] == [
        (1, "agent run"),
        (2, "backend.openai.chat.success-1"),  # numbered by its first span, as its page shows
        (5, "backend.openai.chat.success-2"),
    ]


def test_the_member_that_reports_usage_carries_the_model_call():
    # given a framework that puts the usage on `finish` and the reply on `success`
    recorder = Recorder()
    with recorder.span("agent run", {"gen_ai.operation.name": "invoke_agent"}):
        _model_call(recorder, usage_on="finish")
        _model_call(recorder, 2, usage_on="finish")
    trace = _sent(recorder)
    call = Span.objects.filter(kind=SpanKind.LLM).order_by("position").first()
    # then `finish` carries it, with the input and the reply its siblings reported
    assert call.name == "backend.openai.chat.finish-1"
    assert (call.input, call.output, call.input_tokens) == (ASKED, ANSWERED, 120)
    assert (trace.input_tokens, trace.output_tokens) == (240, 60)


def test_a_model_calls_error_event_fails_the_call_once():
    recorder = Recorder()
    with recorder.span("agent run", {"gen_ai.operation.name": "invoke_agent"}):
        _model_call(recorder, outcome="error")
    trace = _sent(recorder)
    call = Span.objects.get(kind=SpanKind.LLM)
    assert call.name == "backend.openai.chat.error-1" and call.status == SpanStatus.ERROR
    assert trace.error_count == 1


def test_a_model_call_split_across_requests_is_still_one_call():
    recorder = Recorder()
    with recorder.span("agent run", {"gen_ai.operation.name": "invoke_agent"}):
        _model_call(recorder)
    spans = {span.name: span for span in recorder.spans()}
    send([spans["backend.openai.chat.start-1"]])
    send([spans["backend.openai.chat.success-1"], spans["backend.openai.chat.finish-1"]])
    send([spans["agent run"]])
    trace = Trace.objects.get()
    call = Span.objects.get(kind=SpanKind.LLM)
    assert call.name == "backend.openai.chat.success-1" and call.input == ASKED
    assert Span.objects.get(name="backend.openai.chat.start-1").kind == SpanKind.CUSTOM
    assert (trace.input_tokens, trace.output_tokens) == (120, 30)


def test_a_lone_event_named_span_or_events_of_different_calls_stay_as_they_are():
    recorder = Recorder()
    with recorder.span("agent run", {"gen_ai.operation.name": "invoke_agent"}):
        with recorder.span("release.start-1", {}):
            pass
        with recorder.span("backend.openai.chat.start-1", MODEL):
            pass
        with recorder.span("backend.openai.chat.success-2", {**MODEL, **USAGE}):
            pass
    trace = _sent(recorder)
    assert "evalsite.merged_calls" not in trace.attributes
    assert Span.objects.filter(kind=SpanKind.LLM).count() == 2


def _agent_iterations(recorder):
    """BeeAI's agent: `agent.tool_calling.start-N` over an iteration's spans, `success-N`
    beside it, under the run."""
    agent = {"openinference.span.kind": "AGENT"}
    with recorder.span("beeai-framework-main", agent):
        for n in (1, 2):
            with recorder.span(f"agent.tool_calling.start-{n}", agent):
                _model_call(recorder, n)
                with recorder.span(
                    "execute_tool get_weather",
                    {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather"},
                ):
                    pass
            with recorder.span(f"agent.tool_calling.success-{n}", agent):
                pass


def test_an_agents_iterations_are_one_agent_and_one_step_each():
    recorder = Recorder()
    _agent_iterations(recorder)
    trace = _sent(recorder)
    components = set(Span.objects.values_list("component", flat=True))
    assert {c for c in components if c.startswith("agent:")} == {
        "agent:beeai-framework-main",
        "agent:agent.tool_calling",
    }
    # each iteration is one step in the place of its start, its spans under it
    tree = trace_span_tree(trace)
    assert [(n["step"], n["name"]) for n in reading_steps(tree)] == [
        (1, "beeai-framework-main"),
        (2, "agent.tool_calling.success-1"),
        (3, "backend.openai.chat.success-1"),
        (6, "get_weather#1"),
        (8, "agent.tool_calling.success-2"),
        (9, "backend.openai.chat.success-2"),
        (12, "get_weather#2"),
    ]


def test_a_citation_finds_the_step_the_judge_read_under_that_number():
    recorder = Recorder()
    _agent_iterations(recorder)
    trace = _sent(recorder)
    version = Rubric.objects.get(name="General trace judge").latest_version()
    prompt = prompt_render(version, trace)
    assert '{"step": 9, "name": "backend.openai.chat.success-2"' in prompt.user
    assert "backend.openai.chat.start-2" not in prompt.user
    spans = list(trace.spans.order_by("position", "pk"))
    names = citation_names(spans, traces_merged_members([trace]))
    assert {name for _, name in names} == set(prompt.span_names)
    cited = citations_resolve("step 9 answered; get_weather#2 ran", [], names)
    by_id = dict(Span.objects.values_list("span_id", "name"))
    assert [(c["cited"], by_id[c["span_id"]]) for c in cited] == [
        ("step 9", "backend.openai.chat.success-2"),
        ("get_weather#2", "execute_tool get_weather"),
    ]


def test_a_carrier_nested_under_its_own_start_takes_the_starts_place():
    # given a model call whose outcome span sits under its start, beside another span
    recorder = Recorder()
    with (
        recorder.span("agent run", {"gen_ai.operation.name": "invoke_agent"}),
        recorder.span("backend.openai.chat.start-1", {**MODEL, "input.value": json.dumps(ASKED)}),
    ):
        # (one that says something: a plain step that says nothing inside a call is no step)
        with recorder.span("moderation", {"output.value": "allowed"}):
            pass
        with recorder.span(
            "backend.openai.chat.success-1",
            {**MODEL, **USAGE, "output.value": json.dumps(ANSWERED)},
        ):
            pass
    trace = _sent(recorder)
    tree = trace_span_tree(trace)
    # then the call is one step under the run, the start's other span under it
    (call,) = tree["children"]
    assert (call["step"], call["name"]) == (2, "backend.openai.chat.success-1")
    assert [(n["step"], n["name"]) for n in call["children"]] == [(3, "moderation")]
