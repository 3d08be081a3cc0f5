"""OTLP's answers for what the spec allows: an empty export is a success, and spans that
cannot be stored are named in `partial_success` while the rest of the request is stored."""

import json

import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from traces.models import Span, Trace

pytestmark = pytest.mark.django_db
URL = "/v1/traces"
PROTOBUF, JSON = "application/x-protobuf", "application/json"


@pytest.fixture
def client(annotator, api_client_for):
    return api_client_for(annotator)


def _post(client, body: bytes, content_type=PROTOBUF):
    return client.generic("POST", URL, body, content_type=content_type)


def _answer(response) -> ExportTraceServiceResponse:
    assert response.status_code == 200, response.content
    if response["Content-Type"].startswith(JSON):
        return json_format.Parse(response.content or b"{}", ExportTraceServiceResponse())
    return ExportTraceServiceResponse.FromString(response.content)


def _request(count: int, zero_trace_at: int | None = None) -> ExportTraceServiceRequest:
    message = ExportTraceServiceRequest()
    scope = message.resource_spans.add().scope_spans.add()
    for index in range(count):
        span = scope.spans.add()
        span.trace_id = (
            b"\0" * 16 if index == zero_trace_at else (index // 64 + 1).to_bytes(16, "big")
        )
        span.span_id = (index + 1).to_bytes(8, "big")
        span.name = f"execute_tool step_{index}"
        span.start_time_unix_nano = 1_760_000_000_000_000_000 + index
        span.end_time_unix_nano = 1_760_000_000_000_000_000 + index + 500
    return message


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"", PROTOBUF),
        (ExportTraceServiceRequest().SerializeToString(), PROTOBUF),
        (b"{}", JSON),
        (b'{"resourceSpans": []}', JSON),
        (b'{"resourceSpans": [{"resource": {}, "scopeSpans": []}]}', JSON),
    ],
    ids=["empty-protobuf", "no-resource-protobuf", "empty-json", "no-resource", "no-scope"],
)
def test_an_empty_export_is_a_success(client, body, content_type):
    answer = _answer(_post(client, body, content_type))

    assert not answer.HasField("partial_success")
    assert Trace.objects.count() == 0


def test_one_span_with_an_all_zero_trace_id_is_rejected_and_the_other_511_stored(client):
    body = _request(512, zero_trace_at=300).SerializeToString()

    answer = _answer(_post(client, body))

    assert answer.partial_success.rejected_spans == 1
    assert "resource_spans[0].scope_spans[0].spans[300].trace_id" in (
        answer.partial_success.error_message
    )
    assert Span.objects.count() == 511
    assert not Span.objects.filter(name="execute_tool step_300").exists()


def test_the_json_encoding_names_its_rejected_spans_too(client):
    spans = [
        {
            "traceId": "5b8efff798038103d269b633813fc60c",
            "spanId": f"{index + 1:016x}",
            "name": f"execute_tool step_{index}",
            "startTimeUnixNano": "1760000000000000000",
            "endTimeUnixNano": "1760000000000000500",
        }
        for index in range(4)
    ]
    spans[1]["name"] = ""
    spans[2]["spanId"] = "0000000000000000"
    message = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": spans}]}]}

    response = _post(client, json.dumps(message).encode(), JSON)
    answer = _answer(response)

    assert answer.partial_success.rejected_spans == 2
    assert "spans[1].name" in answer.partial_success.error_message
    assert "spans[2].span_id" in answer.partial_success.error_message
    assert sorted(Span.objects.values_list("name", flat=True)) == [
        "execute_tool step_0",
        "execute_tool step_3",
    ]


def test_a_request_whose_every_span_is_invalid_is_refused_with_the_reason(client):
    body = _request(2, zero_trace_at=0)
    body.resource_spans[0].scope_spans[0].spans[1].trace_id = b"\0" * 16

    response = _post(client, body.SerializeToString())

    assert response.status_code == 400
    assert "trace_id" in json.dumps(response.json()["error"]["fields"])
    assert Span.objects.count() == 0
