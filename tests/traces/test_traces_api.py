"""/api/traces/: POST span trees and transcripts, GET list and detail, /bulk/ JSONL."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.factories import ProjectFactory, TraceFactory
from tests.traces.test_ingest_span_tree import refund_tree
from tests.traces.test_ingest_transcripts import ANTHROPIC
from traces.models import Span, Trace

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(annotator, api_client_for):
    return api_client_for(annotator)


def test_post_span_tree_is_201_and_stored(client):
    # when
    response = client.post("/api/traces/", refund_tree(), format="json")
    # then
    assert response.status_code == 201
    body = response.json()
    assert body["span_count"] == 4 and body["project"] == "default"
    assert Trace.objects.get(pk=body["id"]).task.startswith("Refund order A1042")


def test_post_transcript_with_project_in_body(client):
    ProjectFactory(slug="support")
    response = client.post("/api/traces/", {**ANTHROPIC, "project": "support"}, format="json")
    assert response.status_code == 201
    assert response.json()["source_format"] == "anthropic"
    assert Trace.objects.get().project.slug == "support"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "x", "children": [{"name": ""}]}, "children[0].name"),
        ({"name": "x", "format": "xml"}, "format"),
        ([1, 2], "non_field_errors"),
        ({"messages": [{"content": "x"}], "format": "openai"}, "messages[0].role"),
    ],
)
def test_bad_payloads_are_400_naming_the_field(client, body, field):
    response = client.post("/api/traces/", body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]
    assert Span.objects.count() == 0


def test_malformed_json_is_400_not_500(client):
    response = client.generic("POST", "/api/traces/", b"{oops", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "parse_error"


def test_oversized_body_is_413(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 500
    response = client.post("/api/traces/", refund_tree(), format="json")
    assert response.status_code == 413
    assert Trace.objects.count() == 0


@pytest.mark.parametrize(
    ("body_project", "header", "named"),
    [(None, "ghost town", "x-evalsite-project"), ("ghost town", "shop", "project")],
)
def test_a_malformed_project_is_400_naming_where_it_was_given(client, body_project, header, named):
    # The header is named as the bulk and OTLP endpoints name it; the body's field as itself.
    payload = {**refund_tree(), **({"project": body_project} if body_project else {})}
    response = client.post("/api/traces/", payload, format="json", HTTP_X_EVALSITE_PROJECT=header)
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {named: [response.json()["error"]["message"]]}
    assert Trace.objects.count() == 0


def test_a_span_tree_is_complete_on_arrival(client):
    response = client.post("/api/traces/", refund_tree(), format="json")
    assert response.status_code == 201
    assert Trace.objects.get().completed_at is not None


def test_outsider_cannot_post_or_read(outsider, api_client_for):
    client = api_client_for(outsider)
    assert client.post("/api/traces/", refund_tree(), format="json").status_code == 403
    assert client.get("/api/traces/").status_code == 403


def test_list_filters_and_searches(client):
    # given
    TraceFactory(task="Refund order A1042", agent_name="support")
    TraceFactory(task="Book a hotel in Porto", agent_name="travel")
    # when
    response = client.get("/api/traces/", {"q": "porto"})
    # then
    assert [t["task"] for t in response.json()["results"]] == ["Book a hotel in Porto"]
    assert client.get("/api/traces/", {"agent_name": "support"}).json()["count"] == 1


def test_detail_has_spans_in_order(client):
    trace_id = client.post("/api/traces/", refund_tree(), format="json").json()["id"]
    body = client.get(f"/api/traces/{trace_id}/").json()
    assert [s["name"] for s in body["spans"]][:2] == [
        "invoke_agent support",
        "chat claude-sonnet-4-5",
    ]
    assert client.get("/api/traces/999999/").status_code == 404


def test_bulk_jsonl_reports_bad_lines_and_stores_the_rest(client):
    # given
    lines = [json.dumps(refund_tree()), "not json", json.dumps(ANTHROPIC)]
    upload = SimpleUploadedFile("t.jsonl", "\n".join(lines).encode(), "application/x-ndjson")
    # when
    response = client.post("/api/traces/bulk/", {"file": upload}, format="multipart")
    # then
    assert response.status_code == 207
    body = response.json()
    assert body["created"] == 2
    assert body["errors"][0]["line"] == 2
    assert Trace.objects.count() == 2


def test_bulk_raw_body_all_good_is_201(client):
    body = (json.dumps(refund_tree()) + "\n" + json.dumps(ANTHROPIC) + "\n").encode()
    response = client.generic(
        "POST", "/api/traces/bulk/", body, content_type="application/x-ndjson"
    )
    assert response.status_code == 201
    assert response.json()["created"] == 2


def test_bulk_all_bad_is_400(client):
    response = client.generic(
        "POST", "/api/traces/bulk/", b"{x\n[1]\n", content_type="application/x-ndjson"
    )
    assert response.status_code == 400
    assert [e["line"] for e in response.json()["errors"]] == [1, 2]


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 200_000,
        b'{"name": "x", "input": ' + b"[" * 5000 + b"]" * 5000 + b"}",
        b'{"name": "x", "children": '
        + b'[{"name": "y", "children": ' * 3000
        + b"[]"
        + b"}]" * 3000
        + b"}",
    ],
)
def test_json_nested_too_deeply_is_400_not_500(client, body):
    response = client.generic("POST", "/api/traces/", body, content_type="application/json")
    assert response.status_code == 400
    assert "nested too deeply" in response.json()["error"]["message"]
    assert Trace.objects.count() == 0


def test_list_filters_by_the_trace_id_the_agent_sent(client):
    wanted = TraceFactory(external_id="4bf92f3577b34da6a3ce929d0e0e4736")
    TraceFactory(external_id="00f067aa0ba902b7a3ce929d0e0e4736")

    response = client.get("/api/traces/", {"trace_id": "4bf92f3577b34da6a3ce929d0e0e4736"})
    pasted = client.get("/api/traces/", {"trace_id": " 4BF92F3577B34DA6A3CE929D0E0E4736 "})
    unknown = client.get("/api/traces/", {"trace_id": "ffffffffffffffffffffffffffffffff"})

    assert response.status_code == 200
    assert [t["id"] for t in response.json()["results"]] == [wanted.pk]
    assert [t["id"] for t in pasted.json()["results"]] == [wanted.pk]
    assert unknown.json()["results"] == []
