"""One tool call is one step, however many spans report it: lifecycle-event spans of one call,
and the client and server sides of an MCP call."""

import json

import pytest
from opentelemetry.trace import SpanKind as OtelKind
from opentelemetry.trace import Status, StatusCode

from metrics.steps import tool_steps_from_spans, trace_spans
from tests.traces.shape_spans import Recorder, send
from traces.models import Span, SpanKind, SpanStatus, Trace
from traces.serialize import trace_span_tree

pytestmark = pytest.mark.django_db

PARAMS = '{"city": "Lyon"}'


def _lifecycle_call(recorder, n=1, with_kind=True, outcome="success", result='{"temp": 21}'):
    extra = {"openinference.span.kind": "TOOL"} if with_kind else {}
    with recorder.span(f"tool.get_weather.start-{n}", {**extra, "tool.parameters": PARAMS}):
        pass
    with recorder.span(
        f"tool.get_weather.{outcome}-{n}",
        {**extra, "tool.parameters": PARAMS, "output.value": result},
    ):
        pass
    with recorder.span(f"tool.get_weather.finish-{n}", {**extra, "tool.parameters": PARAMS}):
        pass


@pytest.mark.parametrize("with_kind", [True, False])
def test_lifecycle_event_spans_of_one_call_are_one_tool_step(with_kind):
    # given a framework that emits a span per lifecycle event of each tool call
    recorder = Recorder()
    with recorder.span("agent run", {"gen_ai.operation.name": "invoke_agent"}):
        _lifecycle_call(recorder, 1, with_kind)
        _lifecycle_call(recorder, 2, with_kind, result='{"temp": 19}')
    send(recorder.spans())
    trace = Trace.objects.get()
    # then each call is one step named by the tool, with its arguments and result
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(s.tool, s.inputs, s.output) for s in steps] == [
        ("get_weather", {"city": "Lyon"}, {"temp": 21}),
        ("get_weather", {"city": "Lyon"}, {"temp": 19}),
    ]
    # and the raw spans are all kept
    assert Span.objects.filter(name__startswith="tool.get_weather.").count() == 6
    merged = trace.attributes["evalsite.merged_calls"]
    assert sorted(len(members) for members in merged.values()) == [3, 3]


def test_a_lifecycle_error_event_makes_the_step_a_failure():
    recorder = Recorder()
    with recorder.span("agent run", {"gen_ai.operation.name": "invoke_agent"}):
        _lifecycle_call(recorder, 1, outcome="error", result="timeout talking to the API")
    send(recorder.spans())
    (step,) = tool_steps_from_spans(trace_spans(Trace.objects.get()))
    assert step.tool == "get_weather" and step.failed is True


def test_lifecycle_spans_sent_in_separate_requests_still_make_one_step():
    recorder = Recorder()
    with recorder.span("agent run", {"gen_ai.operation.name": "invoke_agent"}):
        _lifecycle_call(recorder, 1)
    spans = {span.name: span for span in recorder.spans()}
    send([spans["tool.get_weather.start-1"]])
    send([spans["tool.get_weather.success-1"], spans["tool.get_weather.finish-1"]])
    send([spans["agent run"]])
    (step,) = tool_steps_from_spans(trace_spans(Trace.objects.get()))
    assert (step.tool, step.inputs, step.output) == ("get_weather", {"city": "Lyon"}, {"temp": 21})


def _mcp_call(
    recorder, *, client_attrs=None, server_attrs=None, server_error=False, client_error=False
):
    """The MCP SDK's own spans: a CLIENT span around the request, the server's SERVER span
    under it (trace context travels in params._meta)."""
    with (
        recorder.span(
            "MCP send tools/call get_weather",
            {"mcp.method.name": "tools/call", "jsonrpc.request.id": "7", **(client_attrs or {})},
            kind=OtelKind.CLIENT,
        ) as client,
        recorder.span(
            "tools/call get_weather",
            {
                "mcp.method.name": "tools/call",
                "jsonrpc.request.id": "7",
                "mcp.protocol.version": "2025-11-25",
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_weather",
                **(server_attrs or {}),
            },
            kind=OtelKind.SERVER,
        ) as server,
    ):
        if server_error:
            server.set_attribute("error.type", "tool_error")
            server.set_status(Status(StatusCode.ERROR))
        if client_error:
            client.set_status(Status(StatusCode.ERROR, "tool_error"))


def test_an_mcp_call_traced_on_both_sides_is_one_call():
    recorder = Recorder()
    with recorder.span("agent run", {"gen_ai.operation.name": "invoke_agent"}):
        _mcp_call(
            recorder,
            client_attrs={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_weather",
                "gen_ai.tool.call.arguments": PARAMS,
                "mcp.session.id": "sess-1",
            },
            server_attrs={"gen_ai.tool.call.result": '{"temp": 21}'},
        )
    send(recorder.spans())
    trace = Trace.objects.get()
    (step,) = tool_steps_from_spans(trace_spans(trace))
    # one call, the client's, with the arguments it sent and the result the server gave
    assert (step.tool, step.inputs, step.output) == ("get_weather", {"city": "Lyon"}, {"temp": 21})
    client_span = Span.objects.get(name="MCP send tools/call get_weather")
    assert step.span_id == client_span.span_id
    assert client_span.tool_call_id == "7"  # jsonrpc.request.id when no tool call id
    server_span = Span.objects.get(name="tools/call get_weather")
    assert server_span.kind == SpanKind.CUSTOM
    assert trace.attributes["evalsite.merged_calls"] == {
        client_span.span_id: [client_span.span_id, server_span.span_id]
    }


def test_an_mcp_server_span_under_the_agents_tool_span_is_that_call():
    # given a framework's execute_tool span with the arguments, the MCP SDK's client span, and
    # the server's span that reports the tool failed
    recorder = Recorder()
    with (
        recorder.span("agent run", {"gen_ai.operation.name": "invoke_agent"}),
        recorder.span(
            "execute_tool get_weather",
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_weather",
                "gen_ai.tool.call.id": "call_9",
                "gen_ai.tool.call.arguments": PARAMS,
            },
        ),
    ):
        _mcp_call(recorder, server_error=True)
    send(recorder.spans())
    (step,) = tool_steps_from_spans(trace_spans(Trace.objects.get()))
    assert (step.tool, step.inputs, step.failed) == ("get_weather", {"city": "Lyon"}, True)
    assert Span.objects.get(span_id=step.span_id).tool_call_id == "call_9"


def test_mcp_sides_in_separate_requests_are_one_call_either_order():
    for server_first in (True, False):
        Trace.objects.all().delete()
        recorder = Recorder()
        with recorder.span("agent run", {"gen_ai.operation.name": "invoke_agent"}):
            _mcp_call(recorder, server_attrs={"gen_ai.tool.call.result": '{"temp": 21}'})
        spans = {span.name: span for span in recorder.spans()}
        order = ["tools/call get_weather", "MCP send tools/call get_weather", "agent run"]
        if not server_first:
            order = order[1::-1] + order[2:]
        for name in order:
            send([spans[name]])
        (step,) = tool_steps_from_spans(trace_spans(Trace.objects.get()))
        assert (step.tool, step.output) == ("get_weather", {"temp": 21}), server_first


@pytest.mark.parametrize("together", [True, False])
def test_an_mcp_call_failed_on_both_sides_is_one_error_of_the_trace(together):
    # given an MCP call whose client and server spans both report the failure, and a model
    # call that failed on its own
    from traces.models import Session

    recorder = Recorder()
    agent = {"gen_ai.operation.name": "invoke_agent", "session.id": "s-1"}
    with recorder.span("agent run", agent):
        _mcp_call(recorder, server_error=True, client_error=True)
        with recorder.span("chat gpt-4o", {"gen_ai.operation.name": "chat"}) as call:
            call.set_status(Status(StatusCode.ERROR, "rate limited"))
    spans = recorder.spans()
    if together:
        send(spans)
    else:  # server, then client, then the rest: the merge happens on a stored span
        by_name = {span.name: span for span in spans}
        send([by_name["tools/call get_weather"]])
        send([by_name["MCP send tools/call get_weather"]])
        send([by_name["chat gpt-4o"], by_name["agent run"]])
    trace = Trace.objects.get()
    assert Span.objects.filter(status=SpanStatus.ERROR).count() == 3  # every span kept as sent
    # then the trace counts two failures: the call once, and the model call
    assert trace.error_count == 2
    assert Session.objects.get().error_count == 2


def test_recount_usage_counts_a_merged_calls_failure_once_in_traces_stored_before():
    from django.core.management import call_command

    from traces.models import Session

    recorder = Recorder()
    with recorder.span("agent run", {"gen_ai.operation.name": "invoke_agent", "session.id": "s"}):
        _mcp_call(recorder, server_error=True, client_error=True)
    send(recorder.spans())
    # as earlier versions stored it: both sides counted
    Trace.objects.update(error_count=2)
    Session.objects.update(error_count=2)
    call_command("recount_usage")
    assert Trace.objects.get().error_count == 1
    assert Session.objects.get().error_count == 1


@pytest.mark.parametrize(
    ("method", "name", "attrs"),
    [
        ("resources/read", "resources/read", {"mcp.resource.uri": "file:///notes/today.md"}),
        ("prompts/get", "prompts/get summarize", {"gen_ai.prompt.name": "summarize"}),
    ],
)
def test_mcp_reads_are_reads_not_tool_calls(method, name, attrs):
    recorder = Recorder()
    with (
        recorder.span("agent run", {"gen_ai.operation.name": "invoke_agent"}),
        recorder.span(
            f"MCP send {name}",
            {"mcp.method.name": method, "jsonrpc.request.id": "3"},
            kind=OtelKind.CLIENT,
        ),
        recorder.span(
            name,
            {"mcp.method.name": method, "jsonrpc.request.id": "3", **attrs},
            kind=OtelKind.SERVER,
        ),
    ):
        pass
    send(recorder.spans())
    trace = Trace.objects.get()
    assert tool_steps_from_spans(trace_spans(trace)) == []
    kinds = sorted(Span.objects.filter(name__contains=method).values_list("kind", flat=True))
    assert kinds == [SpanKind.CUSTOM, SpanKind.RETRIEVER]


def test_the_trace_page_shows_the_merged_call_with_its_raw_spans(client):
    from accounts.roles import ANNOTATOR
    from tests.factories import UserFactory

    recorder = Recorder()
    with recorder.span("agent run", {"gen_ai.operation.name": "invoke_agent"}):
        _lifecycle_call(recorder, 1)
        _lifecycle_call(recorder, 2, result='{"temp": 19}')
    send(recorder.spans())
    trace = Trace.objects.get()
    client.force_login(UserFactory(roles=[ANNOTATOR]))
    page = client.get(f"/traces/{trace.pk}/").content.decode()
    notes = page[page.index('id="merged-calls"') :]
    notes = notes[: notes.index("</dd>")]
    for span in Span.objects.filter(name__startswith="tool.get_weather."):
        assert f"#span-{span.span_id}" in notes
    # listed in step order, each by the step a judge cites it by
    assert "2 calls, each one step reported by several spans" in notes
    assert notes.index("step 2 <a") < notes.index("step 5 <a")
    assert Span.objects.filter(kind=SpanKind.TOOL, status=SpanStatus.OK).count() == 2


def test_mcp_spans_of_different_sessions_are_not_merged():
    # given a client span of one MCP session over a server span that names another session
    recorder = Recorder()
    with recorder.span("agent run", {"gen_ai.operation.name": "invoke_agent"}):
        _mcp_call(
            recorder,
            client_attrs={"mcp.session.id": "sess-a"},
            server_attrs={"mcp.session.id": "sess-b"},
        )
    send(recorder.spans())
    # then they are not one call: the server span keeps its own step
    assert "evalsite.merged_calls" not in Trace.objects.get().attributes
    steps = tool_steps_from_spans(trace_spans(Trace.objects.get()))
    assert len(steps) == 2


MASTRA_REPLY = {
    "text": "",
    "toolCalls": [{"toolCallId": "c1", "toolName": "get_weather", "args": {"city": "Lyon"}}],
}


def _mastra_turn(recorder):
    """A turn of Mastra's model loop as its OpenTelemetry exporter writes it: the turn's span
    with the messages (a preview) and the whole reply, the provider call inside it with the
    usage and the reply's text alone, and the turn's tool call beside the provider call."""
    with recorder.span(
        "agent_step weather",
        {
            "gen_ai.operation.name": "agent_step",
            "mastra.span.type": "model_step",
            "mastra.model_step.input": '[{"role": "user", "content": "Weather in Lyon?"}]',
            "mastra.model_step.output": json.dumps(MASTRA_REPLY),
        },
    ):
        with recorder.span(
            "chat gpt-4o-mini",
            {
                "gen_ai.operation.name": "chat",
                "mastra.span.type": "model_inference",
                "gen_ai.request.model": "gpt-4o-mini",
                "gen_ai.usage.input_tokens": 120,
                "gen_ai.usage.output_tokens": 30,
                "gen_ai.output.messages": '[{"role": "assistant", "parts": '
                '[{"type": "text", "content": ""}]}]',
            },
        ):
            pass
        with recorder.span(
            "execute_tool get_weather",
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_weather",
                "gen_ai.tool.call.id": "c1",
                "gen_ai.tool.call.arguments": PARAMS,
                "gen_ai.tool.call.result": '{"temp": 21}',
            },
        ):
            pass


@pytest.mark.parametrize("split", [False, True])
def test_a_mastra_turn_and_its_provider_call_are_one_model_call(split):
    recorder = Recorder()
    with recorder.span("invoke_agent weather", {"gen_ai.operation.name": "invoke_agent"}):
        _mastra_turn(recorder)
    spans = {span.name: span for span in recorder.spans()}
    if split:  # the provider call ends first, and may be exported before its turn
        send([spans["chat gpt-4o-mini"]])
        send([s for name, s in spans.items() if name != "chat gpt-4o-mini"])
    else:
        send(list(spans.values()))
    trace = Trace.objects.get()
    # one model call, the provider's, with its usage counted once and the turn's whole reply
    call = Span.objects.get(kind=SpanKind.LLM)
    assert call.name == "chat gpt-4o-mini"
    assert (trace.input_tokens, trace.output_tokens) == (120, 30)
    assert call.input == [{"role": "user", "content": "Weather in Lyon?"}]
    assert call.output == MASTRA_REPLY
    turn = Span.objects.get(name="agent_step weather")
    assert turn.kind == SpanKind.CUSTOM
    assert trace.attributes["evalsite.merged_calls"] == {call.span_id: [call.span_id, turn.span_id]}
    # the reading shows the call once, deciding the tool, and the tool that ran after it
    # beside it, not inside it
    tree = trace_span_tree(trace)
    step, tool = tree["children"]
    assert step["name"] == "chat gpt-4o-mini" and step["type"] == SpanKind.LLM
    assert step["output"] == [
        {
            "role": "assistant",
            "tool_calls": [{"tool": "get_weather", "call_id": "c1", "arguments": {"city": "Lyon"}}],
        }
    ]
    assert "children" not in step
    assert (tool["name"], tool["result"]) == ("get_weather", {"temp": 21})


def test_a_mastra_turn_with_no_provider_call_inside_keeps_its_own_step():
    # an older Mastra: the model_generation span is the model call, its turns have none inside
    recorder = Recorder()
    with recorder.span(
        "agent_step weather",
        {
            "mastra.span.type": "model_step",
            "mastra.model_step.output": json.dumps(MASTRA_REPLY),
        },
    ):
        pass
    send(recorder.spans())
    trace = Trace.objects.get()
    assert "evalsite.merged_calls" not in trace.attributes
    (reply,) = trace_span_tree(trace)["output"]
    assert [call["tool"] for call in reply["tool_calls"]] == ["get_weather"]


STREAMED_REPLY = "streaming response from 'gpt-4o-mini' took 0.02s"


def _logfire_streamed_call(recorder, question: str, answer: str):
    """Logfire's streamed chat completion: the call's span ends when the stream opens; the
    reply, read later, is logged beside it with the request again and the usage."""
    request = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.input.messages": f'[{{"role": "user", "content": "{question}"}}]',
    }
    with recorder.span("Chat Completion with 'gpt-4o-mini'", request, kind=OtelKind.CLIENT):
        pass
    reply = {
        **request,
        "gen_ai.output.messages": f'[{{"role": "assistant", "content": "{answer}"}}]',
        "gen_ai.usage.input_tokens": 120,
        "gen_ai.usage.output_tokens": 30,
    }
    with recorder.span(STREAMED_REPLY, reply):
        pass


@pytest.mark.parametrize("separately", [False, True])
def test_a_streamed_call_and_its_logged_reply_are_one_model_step(separately):
    recorder = Recorder()
    with recorder.span("support run"):
        _logfire_streamed_call(recorder, "Where is A1?", "In Lyon.")
        _logfire_streamed_call(recorder, "And A2?", "In Nice.")
    spans = recorder.spans()
    if separately:  # each span in a request of its own, as a batch exporter may send them
        for span in spans:
            send([span])
    else:
        send(spans)
    trace = Trace.objects.get()
    calls = Span.objects.filter(trace=trace, kind=SpanKind.LLM).order_by("position")
    # each reply carries its call, the request its opener had, and counts its tokens once
    assert [(c.name, c.input[0]["content"], c.output[0]["content"]) for c in calls] == [
        (STREAMED_REPLY, "Where is A1?", "In Lyon."),
        (STREAMED_REPLY, "And A2?", "In Nice."),
    ]
    assert (trace.input_tokens, trace.output_tokens) == (240, 60)
    openers = Span.objects.filter(trace=trace, name="Chat Completion with 'gpt-4o-mini'")
    assert {opener.kind for opener in openers} == {SpanKind.CUSTOM}  # kept, as sent
    merged = trace.attributes["evalsite.merged_calls"]
    assert sorted(len(members) for members in merged.values()) == [2, 2]
