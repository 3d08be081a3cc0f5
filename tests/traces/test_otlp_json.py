"""OTLP/JSON is read without protobuf's JSON parser: it must give what protobuf gives, and
refuse what protobuf's parser refused, by field."""

import json

import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from core.errors import InvalidInput
from tests.traces import otel_agents
from tests.traces.test_otlp_exporter import _otlp_json
from traces.ingest.otlp import otlp_batch
from traces.ingest.otlp_wire import JSON, PROTOBUF


def every_agent_spans():
    memory = InMemorySpanExporter()
    provider = TracerProvider(
        resource=Resource.create({"service.name": "agents", "evalsite.project": "json-parity"})
    )
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = otel_agents.tracer_for(provider)
    otel_agents.travel_agent_run(tracer, padding=50)
    otel_agents.support_agent_legacy_run(tracer)
    otel_agents.coding_agent_openinference_run(tracer)
    return list(memory.get_finished_spans())


def one_span(**fields) -> bytes:
    span = {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174"}
    span.update({"name": "step", **fields})
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}).encode()


def refused(body: bytes) -> str:
    """The field the refusal names."""
    with pytest.raises(InvalidInput) as caught:
        otlp_batch(body, JSON)
    return caught.value.field


def test_json_gives_the_same_records_as_protobuf():
    # given the SDK's spans of three agents, encoded both ways
    spans = every_agent_spans()
    # when
    from_protobuf = otlp_batch(encode_spans(spans).SerializeToString(), PROTOBUF)
    from_json = otlp_batch(json.dumps(_otlp_json(spans)).encode(), JSON)
    # then every record, extra and count is the same
    assert from_json == from_protobuf
    assert sum(len(r) for r in from_json.records_by_project.values()) == len(spans)
    assert list(from_json.records_by_project) == ["json-parity"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"intValue": "42"}, 42),
        ({"intValue": 7}, 7),
        ({"doubleValue": 1.5}, 1.5),
        ({"doubleValue": "Infinity"}, float("inf")),
        ({"boolValue": True}, True),
        ({"bytesValue": "aGk="}, "aGk="),
        ({"arrayValue": {"values": [{"stringValue": "a"}, {"intValue": "1"}]}}, ["a", 1]),
        ({"kvlistValue": {"values": [{"key": "k", "value": {"stringValue": "v"}}]}}, {"k": "v"}),
        ({}, None),
    ],
)
def test_attribute_values_read_as_protobuf_reads_them(value, expected):
    body = one_span(attributes=[{"key": "x", "value": value}])
    (record,) = otlp_batch(body, JSON).records_by_project[None]
    assert record.attributes["x"] == expected


@pytest.mark.parametrize(
    "fields",
    [
        {"attributes": [{"key": "x", "value": {"intValue": "4x"}}]},
        {"attributes": [{"key": "x", "value": {"stringValue": "a", "intValue": 1}}]},
        {"attributes": [{"key": "x", "value": {"stringValu": "a"}}]},
        {"attributes": [{"key": 5, "value": {"stringValue": "a"}}]},
        {"kind": "SPAN_KIND_NOPE"},
        {"startTimeUnixNano": "-1"},
        {"flags": "x"},
        {"droppedAttributesCount": 2**40},
        {"links": [{"traceState": 3}]},
        {"status": {"code": 2, "mesage": "typo"}},
        {"events": [{"name": "e", "timeUnixNano": True}]},
    ],
)
def test_what_protobufs_json_parser_refused_is_refused_naming_the_body(fields):
    assert refused(one_span(**fields)) == "body"


def test_a_link_with_a_bad_id_names_the_id():
    assert refused(one_span(links=[{"traceId": "ab" * 16, "spanId": "xyz"}])) == "spanId"


def test_enum_names_and_nulls_read_as_protobuf_reads_them():
    body = one_span(
        kind="SPAN_KIND_CLIENT", status={"code": "STATUS_CODE_ERROR"}, parentSpanId=None
    )
    (record,) = otlp_batch(body, JSON).records_by_project[None]
    assert record.attributes["otel.span_kind"] == "client"
    assert record.status == "error" and record.parent_span_id == ""


def test_an_old_and_a_new_name_for_one_field_are_refused():
    body = json.dumps({"resourceSpans": [], "batches": []}).encode()
    assert refused(body) == "batches"
