"""Basic auth's username (the Langfuse SDK's public key) stands where x-evalsite-project does,
on every API route that takes a project: JSON and JSONL ingest, OTLP traces and logs, the
guardrail check. Routes that take no project ignore it, as they ignore the header."""

import base64
import json

import pytest
from rest_framework.test import APIClient

from accounts.models import ApiToken
from guardrails.models import GuardrailDecision
from tests.factories import ProjectFactory
from traces.models import PendingSpanLog, Project, Trace

pytestmark = pytest.mark.django_db
TRACE_ID = "5b8efff798038103d269b633813fc60c"
TREE = {"name": "agent", "type": "agent", "input": "refund order 7", "output": "done"}


@pytest.fixture
def keyed(annotator):
    """An API client for the annotator's token that sends `public` as Basic auth's username."""
    _, raw = ApiToken.generate(annotator, "langfuse")

    def make(public: str) -> APIClient:
        client = APIClient()
        credential = base64.b64encode(f"{public}:{raw}".encode()).decode()
        client.credentials(HTTP_AUTHORIZATION=f"Basic {credential}")
        return client

    return make


def _otlp(path: str) -> bytes:
    if path == "/v1/logs":
        record = {"traceId": TRACE_ID, "spanId": "eee19b7ec3c1b174", "eventName": "e"}
        return json.dumps({"resourceLogs": [{"scopeLogs": [{"logRecords": [record]}]}]}).encode()
    span = {
        "traceId": TRACE_ID,
        "spanId": "eee19b7ec3c1b174",
        "name": "invoke_agent shop",
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000001000000000",
    }
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}).encode()


def _tree(named: str | None) -> dict:
    return {**TREE, "project": named} if named else TREE


def _json_api(client, named=None):
    response = client.post("/api/traces/", _tree(named), format="json")
    return response, lambda: Trace.objects.get().project.slug


def _jsonl_bulk(client, named=None):
    body = json.dumps(_tree(named)).encode() + b"\n"
    response = client.post("/api/traces/bulk/", body, content_type="application/x-ndjson")
    return response, lambda: Trace.objects.get().project.slug


def _otlp_traces(client, named=None):
    response = client.generic("POST", "/v1/traces", _otlp("/v1/traces"), "application/json")
    return response, lambda: Trace.objects.get().project.slug


def _otlp_logs(client, named=None):
    response = client.generic("POST", "/v1/logs", _otlp("/v1/logs"), "application/json")
    return response, lambda: PendingSpanLog.objects.get().project.slug


def _guardrail_check(client, named=None):
    body = {"trajectory": TREE, "trace_id": TRACE_ID, "record": True}
    if named:
        body["project"] = named
    response = client.post("/api/guardrails/check", body, format="json")
    return response, lambda: GuardrailDecision.objects.get().project.slug


WAYS_IN = [_json_api, _jsonl_bulk, _otlp_traces, _otlp_logs, _guardrail_check]


@pytest.mark.parametrize("way_in", WAYS_IN)
def test_every_way_in_lands_in_the_project_the_public_key_names(keyed, way_in):
    ProjectFactory(slug="support-agent")
    response, landed = way_in(keyed("support-agent"))
    assert response.status_code in (200, 201), response.content
    assert landed() == "support-agent"
    assert not Project.objects.filter(slug="default").exists()


@pytest.mark.parametrize("way_in", WAYS_IN)
def test_every_way_in_refuses_a_public_key_naming_no_project(keyed, way_in):
    response, _ = way_in(keyed("pk-lf-1234"))
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert (error["code"], list(error["fields"])) == ("unknown_project", ["public_key"])
    assert "'pk-lf-1234'" in error["message"]
    assert not Trace.objects.exists()
    assert not PendingSpanLog.objects.exists()
    assert not GuardrailDecision.objects.exists()
    assert not Project.objects.exists()


@pytest.mark.parametrize("way_in", [_json_api, _jsonl_bulk, _guardrail_check])
def test_a_body_naming_its_project_beats_the_public_key_as_it_beats_the_header(keyed, way_in):
    ProjectFactory(slug="support-agent")
    response, landed = way_in(keyed("support-agent"), named="travel")
    assert response.status_code in (200, 201), response.content
    assert landed() == "travel"


def test_a_route_that_takes_no_project_ignores_the_public_key(keyed):
    # Reading lists every project's traces: no key picks one there, as no header does.
    response = keyed("pk-lf-1234").get("/api/traces/")
    assert response.status_code == 200, response.content
