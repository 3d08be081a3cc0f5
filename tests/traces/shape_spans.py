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


def chain_sent(*specs: tuple[str, dict]):
    """Spans each nested in the one before, (name, attributes) outermost first, recorded and
    sent in one request."""
    recorder = Recorder()
    with recorder.chain(*specs):
        pass
    return send(recorder.spans())


class LogRecorder:
    """GenAI events emitted as log records with the OpenTelemetry SDK, tied to a span."""

    def __init__(self, service: str = "shape-agent"):
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import (
            InMemoryLogRecordExporter,
            SimpleLogRecordProcessor,
        )

        self.memory = InMemoryLogRecordExporter()
        provider = LoggerProvider(resource=Resource.create({"service.name": service}))
        provider.add_log_record_processor(SimpleLogRecordProcessor(self.memory))
        self.logger = provider.get_logger("shape-tests")

    def event(self, span, name: str, body=None, attributes: dict | None = None):
        from opentelemetry._logs import LogRecord

        context = span.get_span_context()
        self.logger.emit(
            LogRecord(
                event_name=name,
                body=body,
                attributes=attributes or {},
                trace_id=context.trace_id,
                span_id=context.span_id,
                trace_flags=context.trace_flags,
            )
        )

    def request(self):
        from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs

        return encode_logs(self.memory.get_finished_logs())


def send_logs(request, project: str = "shapes", media: str = PROTOBUF):
    from traces.ingest.services import ingest_otlp_logs

    if media == PROTOBUF:
        body = request.SerializeToString()
    else:
        import base64
        import json

        from google.protobuf import json_format

        data = json_format.MessageToDict(request)
        for resource in data.get("resourceLogs", []):
            for scope in resource.get("scopeLogs", []):
                for record in scope.get("logRecords", []):
                    for key in ("traceId", "spanId"):
                        if key in record:
                            record[key] = base64.b64decode(record[key]).hex()
        body = json.dumps(data).encode()
    return ingest_otlp_logs(body=body, content_type=media, project_slug=project)
