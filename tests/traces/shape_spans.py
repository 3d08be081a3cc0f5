"""Spans recorded with the OpenTelemetry SDK in the shapes issue-level tests need, as the stock
exporter encodes them."""

from __future__ import annotations

from contextlib import ExitStack, contextmanager

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from traces.ingest.services import ingest_otlp

PROTOBUF = "application/x-protobuf"


class Recorder:
    """A tracer whose finished spans are kept, to be sent in one or several requests."""

    def __init__(self, service: str = "shape-agent"):
        self.memory = InMemorySpanExporter()
        provider = TracerProvider(resource=Resource.create({"service.name": service}))
        provider.add_span_processor(SimpleSpanProcessor(self.memory))
        self.tracer = provider.get_tracer("shape-tests")

    @contextmanager
    def span(self, name: str, attributes: dict | None = None, kind=SpanKind.INTERNAL, **kw):
        with self.tracer.start_as_current_span(
            name, attributes=attributes or {}, kind=kind, **kw
        ) as span:
            yield span

    @contextmanager
    def chain(self, *specs: tuple[str, dict]):
        """Spans each nested in the one before: (name, attributes) outermost first."""
        with ExitStack() as stack:
            for name, attributes in specs:
                stack.enter_context(self.span(name, attributes))
            yield

    def spans(self):
        return list(self.memory.get_finished_spans())


def send(spans, project: str = "shapes"):
    body = encode_spans(spans).SerializeToString()
    return ingest_otlp(body=body, content_type=PROTOBUF, project_slug=project)
