"""Real OpenTelemetry SDK exporter traffic to /v1/traces on a live server (protobuf and JSON)."""

import json

import pytest
import requests
from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from accounts.models import ApiToken
from accounts.roles import ANNOTATOR
from tests.factories import ProjectFactory, UserFactory
from tests.otlp_ids import ids_to_hex
from tests.traces import otel_agents
from traces.models import Span, SpanKind, SpanStatus, Trace

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def token():
    user = UserFactory(username="agent-ci", roles=[ANNOTATOR])
    return ApiToken.generate(user, "exporter")[1]


def provider_for(exporter, *, batch=False, resource=None):
    provider = TracerProvider(resource=resource or Resource.create({"service.name": "travel"}))
    processor = BatchSpanProcessor(exporter) if batch else SimpleSpanProcessor(exporter)
    provider.add_span_processor(processor)
    return provider


def test_protobuf_export_span_by_span_builds_the_tree_even_with_the_root_last(live_server, token):
    # given one export request per span, children first, the root last
    ProjectFactory(slug="travel", name="Travel")
    exporter = OTLPSpanExporter(
        endpoint=f"{live_server.url}/v1/traces",
        headers={"authorization": f"Bearer {token}", "x-evalsite-project": "travel"},
    )
    provider = provider_for(exporter)
    # when
    otel_agents.travel_agent_run(otel_agents.tracer_for(provider))
    provider.shutdown()
    # then
    trace = Trace.objects.get()
    assert trace.project.slug == "travel"
    assert trace.source_format == "otlp"
    assert trace.task == otel_agents.TRAVEL_TASK
    assert trace.final_answer == otel_agents.TRAVEL_ANSWER
    assert (trace.agent_name, trace.agent_version) == ("travel-agent", "3.2.0")
    assert trace.stop_reason == "end_turn" and trace.task_type == "flight_booking"
    assert trace.span_count == 11 and trace.error_count == 1
    assert trace.input_tokens == sum(1400 + 300 * i for i in range(5))
    assert trace.model == "claude-sonnet-4-5-20250929"
    assert trace.context["conversation_id"] == "conv_000000"
    root = Span.objects.get(trace=trace, parent_span_id="")
    assert trace.root_span_id == root.span_id
    assert Span.objects.filter(trace=trace, parent_span_id=root.span_id).count() == 10
    tools = list(Span.objects.filter(trace=trace, kind=SpanKind.TOOL).order_by("position"))
    assert [t.tool_name for t in tools][:3] == ["search_flights", "get_fare_rules", "book_flight"]
    assert tools[0].input == {"origin": "LIS", "destination": "BER", "date": "2026-05-14"}
    assert tools[0].output["flights"][0]["id"] == "TP542"
    assert tools[2].status == SpanStatus.ERROR
    assert tools[2].error_message == "SeatMapUnavailable: upstream 503"
    positions = list(
        Span.objects.filter(trace=trace).order_by("position").values_list("span_id", flat=True)
    )
    assert positions[0] == root.span_id


def test_gzip_batch_export_maps_legacy_and_openinference_names(live_server, token):
    # given a batching exporter with gzip and a project named by the resource
    ProjectFactory(slug="support", name="Support")
    exporter = OTLPSpanExporter(
        endpoint=f"{live_server.url}/v1/traces",
        headers={"x-api-key": token},
        compression=Compression.Gzip,
    )
    provider = provider_for(
        exporter,
        batch=True,
        resource=Resource.create({"service.name": "bots", "evalsite.project": "support"}),
    )
    tracer = otel_agents.tracer_for(provider)
    # when
    otel_agents.support_agent_legacy_run(tracer)
    otel_agents.coding_agent_openinference_run(tracer)
    provider.force_flush()
    provider.shutdown()
    # then: the legacy support trace
    legacy = Trace.objects.get(agent_name="support-bot")
    assert legacy.project.slug == "support"
    assert legacy.stop_reason == "max_steps_exceeded"
    assert (legacy.input_tokens, legacy.output_tokens) == (520, 31)
    chat = legacy.spans.get(name="chat gpt-4o")
    assert chat.kind == SpanKind.LLM
    assert chat.input == "user: Where is my order A1042?"
    assert chat.output == "Let me check the shipping status."
    status = legacy.spans.get(name="get_order_status")
    assert status.kind == SpanKind.TOOL and status.output == {"status": "in transit"}
    failing = legacy.spans.get(name="refund_lookup")
    assert failing.status == SpanStatus.ERROR
    assert "refund service timed out" in failing.error_message
    # and the OpenInference coding trace
    coding = Trace.objects.get(agent_name="coder")
    assert coding.task == "Fix the failing test in tests/test_dates.py"
    assert coding.final_answer.startswith("Changed the formatter")
    kinds = dict(coding.spans.values_list("name", "kind"))
    assert kinds == {
        "CodingAgent": "agent",
        "ChatCompletion": "llm",
        "run_tests": "tool",
        "retrieve_docs": "retriever",
    }
    llm = coding.spans.get(name="ChatCompletion")
    assert llm.input[1] == {"message": {"role": "user", "content": "Fix the failing test"}}
    assert (llm.input_tokens, llm.output_tokens, llm.model) == (2100, 140, "gpt-4.1")
    # unknown attributes are kept
    assert coding.spans.get(name="run_tests").attributes["otel.scope.name"]


def _otlp_json(spans) -> dict:
    """The SDK's own encoding of the spans, written as OTLP/JSON (hex ids, camelCase)."""
    data = json_format.MessageToDict(encode_spans(spans))
    ids_to_hex(data)
    return data


def test_json_export_is_stored_and_resending_changes_nothing(live_server, token):
    # given spans recorded by the SDK and encoded as OTLP/JSON
    memory = InMemorySpanExporter()
    provider = provider_for(memory)
    otel_agents.travel_agent_run(otel_agents.tracer_for(provider), run=7)
    body = json.dumps(_otlp_json(memory.get_finished_spans()))
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    # when
    first = requests.post(f"{live_server.url}/v1/traces", data=body, headers=headers, timeout=10)
    again = requests.post(f"{live_server.url}/v1/traces", data=body, headers=headers, timeout=10)
    # then
    assert first.status_code == 200 and first.headers["Content-Type"] == "application/json"
    assert first.json() == {}
    assert again.status_code == 200
    assert again.json()["partialSuccess"]["errorMessage"].startswith("11 spans were already")
    trace = Trace.objects.get()
    assert trace.project.slug == "default"
    assert trace.span_count == 11 and Span.objects.count() == 11
    assert trace.final_answer == otel_agents.TRAVEL_ANSWER
