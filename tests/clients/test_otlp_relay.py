"""The evalsite-gate OTLP relay: a stock exporter given only its URL lands traces in the run.

The relay runs in this process against a live test server; the exporter is OpenTelemetry's
own (protobuf over HTTP, gzip too), and the protobuf edit is read back with the real schema.
"""

import gzip
import json
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from accounts.models import ApiToken
from accounts.roles import ANNOTATOR
from golden.evals.services import eval_run_create
from golden.evals.tags import eval_trials_attach, trace_eval_tags
from golden.models import GoldenExample
from golden.services import dataset_version_create
from tests.factories import GoldenExampleFactory, UserFactory
from tests.traces import otel_agents
from traces.models import Trace

CLIENT_SRC = Path(__file__).resolve().parents[2] / "clients" / "evalsite-gate" / "src"
sys.path.insert(0, str(CLIENT_SRC))

from evalsite_gate.relay import OtlpRelay, tag_json, tag_protobuf  # noqa: E402

RUN = "evalsite.eval_run"


def _attributes(resource) -> dict:
    return {a.key: a.value.string_value or a.value.int_value for a in resource.attributes}


def test_protobuf_tag_joins_each_resource_and_leaves_the_spans_alone():
    # given an export request of two resources, one with attributes of its own
    request = ExportTraceServiceRequest()
    first = request.resource_spans.add()
    first.resource.attributes.add(key="service.name").value.string_value = "travel"
    first.scope_spans.add().spans.add(name="search_flights", trace_id=b"\x01" * 16)
    request.resource_spans.add().scope_spans.add().spans.add(name="bare", trace_id=b"\x02" * 16)
    # when the relay tags it
    tagged = ExportTraceServiceRequest.FromString(
        tag_protobuf(request.SerializeToString(), {RUN: "ci-9"})
    )
    # then every resource carries the run, next to what it had, and the spans are unchanged
    assert _attributes(tagged.resource_spans[0].resource) == {
        "service.name": "travel",
        RUN: "ci-9",
    }
    assert _attributes(tagged.resource_spans[1].resource) == {RUN: "ci-9"}
    assert [rs.scope_spans[0].spans[0].name for rs in tagged.resource_spans] == [
        "search_flights",
        "bare",
    ]


def test_json_tag_replaces_a_stale_run_attribute():
    body = {
        "resourceSpans": [
            {"resource": {"attributes": [{"key": RUN, "value": {"stringValue": "old"}}]}}
        ]
    }
    tagged = json.loads(tag_json(json.dumps(body).encode(), {RUN: "ci-9"}))
    assert tagged["resourceSpans"][0]["resource"]["attributes"] == [
        {"key": RUN, "value": {"stringValue": "ci-9"}}
    ]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("compression", [Compression.NoCompression, Compression.Gzip])
def test_exporter_given_only_the_relay_url_lands_its_trace_in_the_run(live_server, compression):
    # given an eval run over a golden example, and a relay holding the CI token
    GoldenExampleFactory(key="lis-ber-cheapest", task=otel_agents.TRAVEL_TASK)
    dataset = dataset_version_create(name="travel-v1", examples=GoldenExample.objects.all())
    run = eval_run_create(name="ci-78", agent_version="3.2.0", dataset_version=dataset)
    token = ApiToken.generate(UserFactory(username="agent-ci", roles=[ANNOTATOR]), "ci")[1]
    relay = OtlpRelay(live_server.url, token, {RUN: "ci-78"}).start()
    try:
        # when the agent's stock exporter, with no token and no run tag, sends to the relay
        resource = Resource.create(
            {"service.name": "travel", "evalsite.example_key": "lis-ber-cheapest"}
        )
        provider = TracerProvider(resource=resource)
        exporter = OTLPSpanExporter(endpoint=relay.endpoint, compression=compression)
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        otel_agents.travel_agent_run(otel_agents.tracer_for(provider))
        provider.shutdown()
    finally:
        relay.stop()
    # then evalsite stored the trace tagged with the run, and it becomes the run's trial
    assert relay.forwarded >= 1
    trace = Trace.objects.get()
    assert trace_eval_tags(trace) == {RUN: "ci-78", "evalsite.example_key": "lis-ber-cheapest"}
    assert eval_trials_attach(run)["attached"] == 1
    trial = run.trials.get()
    assert trial.trace == trace
    assert trial.entry.example_key == "lis-ber-cheapest"


@pytest.mark.django_db(transaction=True)
def test_relay_refuses_what_is_not_an_otlp_export(live_server):
    token = ApiToken.generate(UserFactory(username="agent-ci", roles=[ANNOTATOR]), "ci")[1]
    relay = OtlpRelay(live_server.url, token, {RUN: "ci-79"}).start()
    try:
        bad = urllib.request.Request(
            relay.endpoint,
            data=gzip.compress(b"\xff\xff\xff"),
            headers={"Content-Type": "application/x-protobuf", "Content-Encoding": "gzip"},
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(bad, timeout=10)
        other = urllib.request.Request(f"{relay.endpoint[: -len('/v1/traces')]}/v1/logs", b"")
        with pytest.raises(urllib.error.HTTPError) as elsewhere:
            urllib.request.urlopen(other, timeout=10)
    finally:
        relay.stop()
    assert refused.value.code == 400
    assert "Not an OTLP trace export" in json.loads(refused.value.read())["message"]
    assert elsewhere.value.code == 404
    assert relay.forwarded == 0
    assert not Trace.objects.exists()
