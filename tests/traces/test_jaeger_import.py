"""A Jaeger query-API JSON export (what Jaeger and Tempo UIs hand a user) is imported."""

import json

import pytest
from django.core.management import call_command

from accounts.roles import ANNOTATOR
from tests.factories import ProjectFactory, UserFactory
from traces.ingest.jaeger import jaeger_records
from traces.models import Span, SpanKind, SpanStatus, Trace

pytestmark = pytest.mark.django_db

TRACE_ID = "5b8aa5a2d2c872e8321cf37308d69df2"
START = 1_733_300_000_000_000  # microseconds
ROOT_SPAN = "0000000000000001"


def tag(key, value):
    kind = {bool: "bool", int: "int64", float: "float64"}.get(type(value), "string")
    return {"key": key, "type": kind, "value": value}


def jaeger_export(trace_id=TRACE_ID):
    return {
        "data": [
            {
                "traceID": trace_id,
                "spans": [
                    {
                        "traceID": trace_id,
                        "spanID": "0000000000000001",
                        "operationName": "invoke_agent support",
                        "references": [],
                        "startTime": START,
                        "duration": 900_000,
                        "tags": [
                            tag("gen_ai.operation.name", "invoke_agent"),
                            tag("agent.task", "Where is order 42?"),
                            tag("span.kind", "internal"),
                        ],
                        "logs": [],
                        "processID": "p1",
                    },
                    {
                        "traceID": trace_id,
                        "spanID": "0000000000000002",
                        "operationName": "chat gpt-4o-mini",
                        "references": [
                            {
                                "refType": "CHILD_OF",
                                "traceID": trace_id,
                                "spanID": "0000000000000001",
                            }
                        ],
                        "startTime": START + 1000,
                        "duration": 400_000,
                        "tags": [
                            tag("gen_ai.operation.name", "chat"),
                            tag("gen_ai.request.model", "gpt-4o-mini"),
                            tag("gen_ai.usage.input_tokens", 120),
                            tag("gen_ai.usage.output_tokens", 12),
                        ],
                        "logs": [
                            {
                                "timestamp": START + 2000,
                                "fields": [
                                    tag("event", "gen_ai.choice"),
                                    tag("message", '{"content": "Order 42 ships today."}'),
                                ],
                            }
                        ],
                        "processID": "p1",
                    },
                    {
                        "traceID": trace_id,
                        "spanID": "0000000000000003",
                        "operationName": "execute_tool lookup_order",
                        "references": [
                            {
                                "refType": "CHILD_OF",
                                "traceID": trace_id,
                                "spanID": "0000000000000001",
                            }
                        ],
                        "startTime": START + 500_000,
                        "duration": 100_000,
                        "tags": [
                            tag("gen_ai.operation.name", "execute_tool"),
                            tag("gen_ai.tool.name", "lookup_order"),
                            tag("gen_ai.tool.call.arguments", '{"order": 42}'),
                            tag("error", True),
                            tag("otel.status_code", "ERROR"),
                            tag("otel.status_description", "order service down"),
                        ],
                        "logs": [],
                        "processID": "p1",
                        "warnings": None,
                    },
                ],
                "processes": {
                    "p1": {
                        "serviceName": "support-agent",
                        "tags": [tag("service.version", "1.4.0")],
                    }
                },
                "warnings": None,
            }
        ],
        "total": 0,
        "limit": 0,
        "offset": 0,
        "errors": None,
    }


def test_the_api_imports_a_jaeger_export(client):
    client.force_login(UserFactory(roles=[ANNOTATOR]))
    response = client.post(
        "/api/traces/", json.dumps(jaeger_export()), content_type="application/json"
    )
    assert response.status_code == 201, response.content
    assert [t["external_id"] for t in response.json()["traces"]] == [TRACE_ID]
    trace = Trace.objects.get()
    assert trace.source_format == "jaeger"
    assert trace.task == "Where is order 42?"
    assert (trace.agent_name, trace.agent_version) == ("support-agent", "1.4.0")
    assert (trace.input_tokens, trace.output_tokens) == (120, 12)
    assert trace.completed_at is not None  # an export is whole
    spans = {span.span_id: span for span in Span.objects.all()}
    model = spans["0000000000000002"]
    assert model.parent_span_id == "0000000000000001" and model.kind == SpanKind.LLM
    assert trace.final_answer == "Order 42 ships today."  # from the span's gen_ai.choice log
    tool = spans["0000000000000003"]
    assert (tool.tool_name, tool.input) == ("lookup_order", {"order": 42})
    assert tool.status == SpanStatus.ERROR and tool.error_message == "order service down"
    assert tool.started_at.timestamp() == pytest.approx((START + 500_000) / 1e6)
    assert tool.duration_ms == 100


def test_a_64_bit_trace_id_is_padded_like_otlp():
    records, _ = jaeger_records(jaeger_export("321cf37308d69df2"))
    assert {r.trace_external_id for r in records} == {"0000000000000000321cf37308d69df2"}


def test_a_bad_span_is_refused_by_its_path(client):
    client.force_login(UserFactory(roles=[ANNOTATOR]))
    export = jaeger_export()
    del export["data"][0]["spans"][1]["spanID"]
    response = client.post("/api/traces/", json.dumps(export), content_type="application/json")
    assert response.status_code == 400
    assert "data[0].spans[1].spanID" in response.json()["error"]["fields"]
    assert not Trace.objects.exists()


def test_the_ingest_command_imports_a_jaeger_file(tmp_path):
    ProjectFactory(slug="imported")
    path = tmp_path / "export.json"
    path.write_text(json.dumps(jaeger_export(), indent=2))
    call_command("ingest", str(path), "--project", "imported", "--no-progress")
    assert Trace.objects.get().project.slug == "imported"
    assert Span.objects.count() == 3
