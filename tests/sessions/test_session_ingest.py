"""Sessions are set at ingest on every path, whichever span or payload field names them."""

import json

import pytest
from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.otlp_ids import ids_to_hex
from traces.ingest.services import ingest_otlp, ingest_payload
from traces.models import Session, Trace
from traces.projects import project_resolve

pytestmark = pytest.mark.django_db
PROTOBUF = "application/x-protobuf"


def conversation_spans(root_attributes=None, child_attributes=None, resource=None):
    """A root agent span and one model call, as the OpenTelemetry SDK records them."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create(resource or {"service.name": "support"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("test")
    with (
        tracer.start_as_current_span("invoke_agent", attributes=root_attributes or {}),
        tracer.start_as_current_span("chat gpt-4o", attributes=child_attributes or {}),
    ):
        pass
    return list(memory.get_finished_spans())  # child first, root last


def send_protobuf(spans, project=None):
    body = encode_spans(spans).SerializeToString()
    return ingest_otlp(body=body, content_type=PROTOBUF, project_slug=project)


def send_json(spans):
    data = json_format.MessageToDict(encode_spans(spans))
    ids_to_hex(data)
    return ingest_otlp(body=json.dumps(data).encode(), content_type="application/json")


@pytest.mark.parametrize(
    "attribute", ["session.id", "gen_ai.conversation.id", "langfuse.session.id"]
)
def test_otlp_protobuf_span_attribute_names_the_session(attribute):
    send_protobuf(conversation_spans(root_attributes={attribute: "conv-42"}))

    trace = Trace.objects.get()
    assert trace.session is not None
    assert trace.session.external_id == "conv-42"
    assert trace.session.project == trace.project


def test_otlp_json_reads_the_conversation_id_of_a_model_call():
    send_json(conversation_spans(child_attributes={"gen_ai.conversation.id": "thread-7"}))

    assert Trace.objects.get().session.external_id == "thread-7"


def test_a_late_span_carrying_the_id_moves_the_trace_into_its_session():
    # given the root alone first, with no session id
    child, root = conversation_spans(child_attributes={"session.id": "late-1"})
    send_protobuf([root])
    assert Trace.objects.get().session is None
    # when the model call that names the session arrives in a later request
    send_protobuf([child])
    # then
    assert Trace.objects.get().session.external_id == "late-1"


def test_a_later_batch_without_an_id_keeps_the_session():
    child, root = conversation_spans(root_attributes={"session.id": "keep-me"})
    send_protobuf([root])
    send_protobuf([child])

    assert Trace.objects.get().session.external_id == "keep-me"


def test_the_resource_attribute_names_the_session():
    send_protobuf(conversation_spans(resource={"service.name": "x", "session.id": "res-9"}))

    assert Trace.objects.get().session.external_id == "res-9"


def test_traces_of_one_conversation_share_one_session_per_project():
    default = project_resolve()
    other = project_resolve(named="other")
    for index in range(3):
        ingest_payload(
            default, {"name": "agent", "task": f"turn {index}", "context": {"session_id": "s-1"}}
        )
    ingest_payload(other, {"name": "agent", "context": {"session_id": "s-1"}})

    assert Session.objects.count() == 2
    shared = Session.objects.get(project=default)
    assert shared.traces.count() == 3
    assert Session.objects.get(project=other).traces.count() == 1


@pytest.mark.parametrize(
    "payload",
    [
        {"name": "agent", "context": {"conversation_id": "c-3"}},
        {"name": "agent", "attributes": {"gen_ai.conversation.id": "c-3"}},
        {
            "format": "openai",
            "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}],
            "context": {"session_id": "c-3"},
        },
        {
            "format": "anthropic",
            "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}],
            "metadata": {"langfuse_session_id": "c-3"},
        },
    ],
    ids=["span-tree context", "span-tree attribute", "openai transcript", "anthropic metadata"],
)
def test_span_tree_and_transcripts_name_the_session(payload):
    ingest_payload(project_resolve(), payload)

    assert Trace.objects.get().session.external_id == "c-3"


def test_a_trace_without_any_id_has_no_session():
    ingest_payload(project_resolve(), {"name": "agent", "context": {"user": "u1"}})

    assert Trace.objects.get().session is None
    assert not Session.objects.exists()
