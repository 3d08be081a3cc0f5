"""Run a framework's agent with its own OpenTelemetry instrumentation, then send the spans to
evalsite as the stock OTLP/HTTP exporter encodes them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from traces.models import Span, SpanKind, Trace

PROJECT = "conformance"


def capturing_provider(service: str) -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def export_to_evalsite(api_client, exporter: InMemorySpanExporter) -> Trace:
    """POST the captured spans as one protobuf export request; the one trace they make."""
    spans_export(api_client, exporter)
    return Trace.objects.get(project__slug=PROJECT)


def spans_export(api_client, exporter: InMemorySpanExporter) -> None:
    """POST the spans finished so far as one protobuf export request, and forget them."""
    body = encode_spans(exporter.get_finished_spans()).SerializePartialToString()
    exporter.clear()
    response = api_client.generic(
        "POST",
        "/v1/traces",
        body,
        content_type="application/x-protobuf",
        HTTP_X_EVALSITE_PROJECT=PROJECT,
    )
    assert response.status_code == 200, response.content


def tool_calls(trace: Trace) -> list[tuple[str, object, object]]:
    """(tool name, arguments, result) of the trace's tool spans in start order."""
    return [
        (span.tool_name, span.input, span.output)
        for span in Span.objects.filter(trace=trace, kind=SpanKind.TOOL).order_by("position")
    ]


@contextmanager
def instrumented(provider: TracerProvider, *instrumentors, **instrument_options) -> Iterator[None]:
    """The instrumentations send to `provider` inside the block; after it, none is left on, so
    the next test's framework is not traced twice."""
    done = []
    try:
        for instrumentor in instrumentors:
            instrumentor.instrument(tracer_provider=provider, **instrument_options)
            done.append(instrumentor)
        yield
    finally:
        for instrumentor in reversed(done):
            instrumentor.uninstrument()


def openai_v2_support_run(
    provider: TracerProvider, tools: dict | None = None, retry: bool = True, **instrument_options
) -> None:
    """The support agent on the fake OpenAI server, instrumented by the OpenTelemetry OpenAI
    instrumentation, under a root span that says nothing about the task. `tools` and `retry`
    as support_task.openai_agent_run and FakeOpenAI take them."""
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

    from tests.conformance import support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    with (
        instrumented(provider, OpenAIInstrumentor(), **instrument_options),
        FakeOpenAI(retry=retry) as server,
        provider.get_tracer("support").start_as_current_span("support run"),
    ):
        support_task.openai_agent_run(server.base_url, MODEL, tools)
