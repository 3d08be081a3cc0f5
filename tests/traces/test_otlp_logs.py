"""OTLP logs: GenAI instrumentations in event mode send message content as log records, joined
to their spans by trace and span id, before or after the spans arrive."""

import json

import pytest

from tests.traces.shape_spans import PROTOBUF, LogRecorder, Recorder, send, send_logs
from traces.models import Span, Trace

pytestmark = pytest.mark.django_db

MODEL_CALL = {
    "gen_ai.operation.name": "chat",
    "gen_ai.system": "openai",
    "gen_ai.request.model": "gpt-4o-mini",
    "gen_ai.usage.input_tokens": 40,
    "gen_ai.usage.output_tokens": 8,
}


def _event_mode_agent():
    """An agent whose model call's content arrives only as log-based events."""
    spans, logs = Recorder(), LogRecorder()
    agent = spans.span("invoke_agent support", {"gen_ai.operation.name": "invoke_agent"})
    with agent, spans.span("chat gpt-4o-mini", MODEL_CALL) as call:
        logs.event(call, "gen_ai.system.message", {"content": "You are Acme's helper."})
        logs.event(call, "gen_ai.user.message", {"content": "Where is order 42?"})
        logs.event(
            call,
            "gen_ai.choice",
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"content": "Order 42 ships today."},
            },
        )
    return spans.spans(), logs.request()


@pytest.mark.parametrize("logs_first", [False, True])
def test_message_events_give_the_model_call_its_content_in_either_order(logs_first):
    spans, logs = _event_mode_agent()
    if logs_first:
        result = send_logs(logs)
        assert (result.joined, result.pending) == (0, 3)
        send(spans)
    else:
        send(spans)
        result = send_logs(logs)
        assert (result.joined, result.pending) == (3, 0)
    trace = Trace.objects.get()
    assert trace.task == "Where is order 42?"
    assert trace.final_answer == "Order 42 ships today."
    call = Span.objects.get(name="chat gpt-4o-mini")
    assert call.input and call.output
    assert [e["name"] for e in call.attributes["otel.logs"]] == [
        "gen_ai.system.message",
        "gen_ai.user.message",
        "gen_ai.choice",
    ]
    # the call still counts once
    assert (trace.input_tokens, trace.output_tokens, trace.span_count) == (40, 8, 2)


def test_messages_logged_as_json_text_are_read_as_messages():
    # Python's logging handler sends the logged string as the body and the event's name, the
    # logger's `extra` and its code location as attributes (Semantic Kernel's messages)
    spans, logs = Recorder(), LogRecorder()
    where = {"code.file.path": "/app/decorators.py", "code.line.number": 380}
    with spans.span("chat gpt-4o-mini", MODEL_CALL) as call:
        for name, message in (
            ("gen_ai.system.message", {"role": "system", "content": "You are Acme's helper."}),
            ("gen_ai.user.message", {"role": "user", "content": "Where is order 42?"}),
        ):
            logs.event(call, None, json.dumps(message), {"event.name": name, **where})
        reply = {
            "message": {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "Orders-track", "arguments": '{"order": 42}'},
                    }
                ],
            },
            "finish_reason": "tool_calls",
        }
        logs.event(call, None, json.dumps(reply), {"event.name": "gen_ai.choice", **where})
    send(spans.spans())
    send_logs(logs.request(), media="application/json")
    call = Span.objects.get()
    assert [(m["event"], m["role"]) for m in call.input] == [
        ("gen_ai.system.message", "system"),
        ("gen_ai.user.message", "user"),
    ]
    assert "code.file.path" not in json.dumps(call.input)
    assert call.output["message"]["tool_calls"][0]["function"]["name"] == "Orders-track"
    assert Trace.objects.get().task == "Where is order 42?"
    # the records are kept as sent
    logged = call.attributes["otel.logs"][1]["attributes"]
    assert logged["body"] == json.dumps({"role": "user", "content": "Where is order 42?"})
    assert logged["code.file.path"] == "/app/decorators.py"


QUESTION = "Hi, open on Sunday?"


def test_the_operation_details_event_gives_messages_and_usage():
    spans, logs = Recorder(), LogRecorder()
    with spans.span(
        "chat gpt-4o-mini", {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini"}
    ) as call:
        logs.event(
            call,
            "gen_ai.client.inference.operation.details",
            attributes={
                "gen_ai.input.messages": json.dumps(
                    [
                        {
                            "role": "user",
                            "parts": [{"type": "text", "content": "Hi, open on Sunday?"}],
                        }
                    ]
                ),
                "gen_ai.output.messages": json.dumps(
                    [
                        {
                            "role": "assistant",
                            "parts": [{"type": "text", "content": "Yes, 10 to 4."}],
                            "finish_reason": "stop",
                        }
                    ]
                ),
                "gen_ai.usage.input_tokens": 12,
                "gen_ai.usage.output_tokens": 5,
            },
        )
    send(spans.spans())
    send_logs(logs.request(), media="application/json")
    trace = Trace.objects.get()
    assert (trace.task, trace.final_answer) == ("Hi, open on Sunday?", "Yes, 10 to 4.")
    assert (trace.input_tokens, trace.output_tokens) == (12, 5)


def test_the_logs_endpoint_answers_otlp_and_counts_records_it_cannot_join(client):
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
        ExportLogsServiceRequest,
        ExportLogsServiceResponse,
    )

    from accounts.models import ApiToken
    from accounts.roles import ANNOTATOR
    from tests.factories import UserFactory

    spans, logs = _event_mode_agent()
    request = logs
    orphan = ExportLogsServiceRequest()
    orphan.CopyFrom(request)
    record = orphan.resource_logs[0].scope_logs[0].log_records.add()
    record.event_name = "gen_ai.user.message"
    record.body.string_value = "no span named"
    token = ApiToken.generate(UserFactory(roles=[ANNOTATOR]), "logs")[1]
    response = client.generic(
        "POST",
        "/v1/logs",
        orphan.SerializeToString(),
        content_type=PROTOBUF,
        HTTP_AUTHORIZATION=f"Bearer {token}",
        HTTP_X_EVALSITE_PROJECT="shapes",
    )
    assert response.status_code == 200, response.content
    answer = ExportLogsServiceResponse.FromString(response.content)
    assert answer.partial_success.rejected_log_records == 1
    assert "trace and span id" in answer.partial_success.error_message
    send(spans)
    assert Trace.objects.get().task == "Where is order 42?"


def test_a_body_that_is_not_otlp_logs_is_refused(client):
    from accounts.models import ApiToken
    from accounts.roles import ANNOTATOR
    from tests.factories import UserFactory

    token = ApiToken.generate(UserFactory(roles=[ANNOTATOR]), "logs")[1]
    response = client.generic(
        "POST",
        "/v1/logs",
        b"\xff\xfe not protobuf",
        content_type=PROTOBUF,
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    assert response.status_code == 400
    assert "body" in response.json()["error"]["fields"]
