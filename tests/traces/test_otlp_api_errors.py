"""/v1/traces refuses bad input with a clear JSON error and writes nothing."""

import gzip
import json

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from rest_framework.test import APIClient

from tests.factories import ProjectFactory
from traces.models import Project, Span, Trace

pytestmark = pytest.mark.django_db
URL = "/v1/traces"
TRACE_ID = bytes.fromhex("5b8efff798038103d269b633813fc60c")


def request_with(*spans) -> bytes:
    message = ExportTraceServiceRequest()
    scope = message.resource_spans.add().scope_spans.add()
    for span_id, parent, name in spans:
        span = scope.spans.add()
        span.trace_id = TRACE_ID
        span.span_id = span_id
        span.parent_span_id = parent
        span.name = name
        span.start_time_unix_nano = 1_760_000_000_000_000_000
        span.end_time_unix_nano = 1_760_000_000_500_000_000
    return message.SerializeToString()


GOOD = request_with((b"\x01" * 8, b"", "invoke_agent"), (b"\x02" * 8, b"\x01" * 8, "chat"))


@pytest.fixture
def client(annotator, api_client_for):
    return api_client_for(annotator)


def post(client, body, content_type="application/x-protobuf", **headers):
    return client.generic("POST", URL, body, content_type=content_type, **headers)


def assert_error(response, status, field):
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert field in error["fields"], error
    assert Span.objects.count() == 0


def test_good_protobuf_is_stored(client):
    # when
    response = post(client, GOOD)
    # then
    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-protobuf"
    assert Trace.objects.get().span_count == 2
    assert Project.objects.filter(slug="default").exists()


def test_gzip_body_is_accepted(client):
    # when
    response = post(client, gzip.compress(GOOD), HTTP_CONTENT_ENCODING="gzip")
    # then
    assert response.status_code == 200
    assert Span.objects.count() == 2


def test_garbage_protobuf_is_400(client):
    assert_error(post(client, b"\xff\xfe not protobuf \x00\x01"), 400, "body")


def test_bad_json_is_400(client):
    assert_error(post(client, b"{not json", "application/json"), 400, "body")


def test_json_with_wrong_types_is_400(client):
    body = b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": 5, "kind": "nope"}]}]}]}'
    assert_error(post(client, body, "application/json"), 400, "body")


def test_json_with_non_hex_id_is_400(client):
    body = b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "zz", "name": "x"}]}]}]}'
    assert_error(post(client, body, "application/json"), 400, "traceId")


def test_a_request_whose_only_span_has_no_id_names_it_and_nothing_is_written(client):
    body = request_with((b"", b"", "root"))
    assert_error(post(client, body), 400, "resource_spans[0].scope_spans[0].spans[0].span_id")
    assert Trace.objects.count() == 0


def test_wrong_content_type_is_415(client):
    assert_error(post(client, GOOD, "text/plain"), 415, "content-type")


def test_bad_gzip_is_400(client):
    assert_error(post(client, b"not gzip", HTTP_CONTENT_ENCODING="gzip"), 400, "body")


def test_body_over_the_limit_is_413(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    assert_error(post(client, GOOD + b"\x00" * 200), 413, "body")


def test_gzip_that_inflates_over_the_limit_is_413(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    bomb = gzip.compress(b"\x00" * 1_000_000)
    assert len(bomb) < 10_000
    assert_error(post(client, bomb, HTTP_CONTENT_ENCODING="gzip"), 413, "body")


def test_a_project_named_for_the_first_time_is_created(client):
    assert post(client, GOOD, HTTP_X_EVALSITE_PROJECT="support-agent").status_code == 200
    assert Trace.objects.get().project.slug == "support-agent"


def test_a_project_header_that_is_no_slug_is_400(client):
    assert_error(post(client, GOOD, HTTP_X_EVALSITE_PROJECT="no such/"), 400, "x-evalsite-project")
    assert Trace.objects.count() == 0


def test_known_project_header_is_used(client):
    ProjectFactory(slug="travel")
    assert post(client, GOOD, HTTP_X_EVALSITE_PROJECT="travel").status_code == 200
    assert Trace.objects.get().project.slug == "travel"


def test_unknown_token_is_401():
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Bearer not-a-token")
    response = post(client, GOOD)
    assert response.status_code == 401
    assert Span.objects.count() == 0


def test_no_token_is_401():
    assert post(APIClient(), GOOD).status_code == 401


def test_user_without_a_role_is_403(outsider, api_client_for):
    response = post(api_client_for(outsider), GOOD)
    assert response.status_code == 403
    assert Span.objects.count() == 0


def test_json_nested_too_deeply_is_400(client):
    body = b'{"resourceSpans": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    assert_error(post(client, body, "application/json"), 400, "body")


def test_application_protobuf_alias_is_accepted(client):
    assert post(client, GOOD, "application/protobuf").status_code == 200
    assert Span.objects.count() == 2


def otlp_json(spans_key="scopeSpans", scope_key="scope", envelope="resourceSpans"):
    span = {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": "eee19b7ec3c1b174",
        "name": "invoke_agent support",
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000001000000000",
    }
    return json.dumps(
        {envelope: [{"resource": {}, spans_key: [{scope_key: {"name": "agent"}, "spans": [span]}]}]}
    ).encode()


@pytest.mark.parametrize(
    ("spans_key", "scope_key", "envelope"),
    [
        ("instrumentationLibrarySpans", "instrumentationLibrary", "resourceSpans"),
        ("scopeSpans", "scope", "batches"),
        ("scope_spans", "scope", "resource_spans"),
    ],
    ids=["pre-0.19-names", "batches-envelope", "snake-case"],
)
def test_older_otlp_json_names_are_read(client, spans_key, scope_key, envelope):
    body = otlp_json(spans_key, scope_key, envelope)
    response = post(client, body, content_type="application/json")
    assert response.status_code == 200, response.content
    span = Span.objects.get()
    assert span.name == "invoke_agent support"
    assert span.attributes["otel.scope.name"] == "agent"


def test_an_envelope_we_cannot_read_is_400_not_an_empty_200(client):
    body = json.dumps({"data": [{"resourceSpans": []}]}).encode()
    assert_error(post(client, body, content_type="application/json"), 400, "body")


def test_an_unknown_span_field_is_refused_by_name(client):
    body = json.loads(otlp_json())
    body["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["atributes"] = []
    response = post(client, json.dumps(body).encode(), content_type="application/json")
    assert response.status_code == 400
    assert "atributes" in json.dumps(response.json())
