"""MLflow Tracing (the `mlflow-tracing` SDK), exporting over OTLP as a team sends it to evalsite:
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` set, no tracking server. Runs of the support task for
tests/conformance/record.py, each with its pins."""

from __future__ import annotations

import functools
import os

PINS = {
    # MLflow's light tracing SDK (~10 MB with its dependencies): `mlflow.openai.autolog()` for
    # the model calls, `@mlflow.trace` on the tools and around the loop; whole, streamed, and
    # with a lookup that fails once
    name: ["mlflow-tracing==3.17.2", "openai==3.57.0", "opentelemetry-sdk==1.45.2"]
    for name in (
        "mlflow-openai",
        "mlflow-openai-stream",
        "mlflow-openai-tool-error",
        "mlflow-openai-genai",
    )
}

# MLflow sends its spans over OTLP when this is set, and then to no tracking server: the URL
# is never reached, the exporter MLflow builds for it is swapped for the recorder's capture.
OTLP_ENDPOINT = "http://127.0.0.1:9/v1/traces"
# A tracking URI named, never used (with an OTLP endpoint MLflow sends nowhere else):
# mlflow-tracing 3.17.2 guesses a default one through a module it does not install
# (`sqlparse`), and starts no span at all when left to.
TRACKING_URI = "http://127.0.0.1:9"


def mlflow_exporting_to(provider, genai_semconv: bool = False) -> None:
    """MLflow set up as its OTLP export is (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, MLflow's own
    tracer provider with its OtelSpanProcessor, no tracking server, no usage telemetry), the
    exporter it builds replaced by one handing the same spans to `provider`'s capture: what
    MLflow's OTLP exporter would encode and send, span for span. With `genai_semconv` MLflow
    translates its spans to the GenAI conventions before export
    (`MLFLOW_ENABLE_OTEL_GENAI_SEMCONV`)."""
    os.environ.update(
        {
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": OTLP_ENDPOINT,
            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf",
            "OTEL_SERVICE_NAME": "support",
            "MLFLOW_TRACKING_URI": TRACKING_URI,
            "MLFLOW_DISABLE_TELEMETRY": "true",
            "DO_NOT_TRACK": "true",
            "MLFLOW_ENABLE_OTEL_GENAI_SEMCONV": str(genai_semconv).lower(),
        }
    )
    import mlflow.tracing.provider
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

    capture = provider._active_span_processor._span_processors[0].span_exporter

    class Captured(SpanExporter):
        def export(self, spans):
            capture.export(spans)
            return SpanExportResult.SUCCESS

    mlflow.tracing.provider.get_otlp_exporter = Captured
    mlflow.tracing.provider.reset()


def flushed() -> None:
    """MLflow's batch processor sends what it holds."""
    import mlflow.tracing.provider

    mlflow.tracing.provider.provider.get().force_flush()


def mlflow_openai_run(
    provider, stream: bool = False, lookup_fails: bool = False, genai_semconv: bool = False
) -> None:
    """`mlflow.openai.autolog()` around the plain OpenAI tool loop (chat completions, the tools
    declared, whole or streamed), each tool a TOOL span and the loop an AGENT span. With
    `lookup_fails` the first lookup raises; the loop tells the model its error."""
    mlflow_exporting_to(provider, genai_semconv)
    import mlflow
    from mlflow.entities import SpanType

    from tests.conformance import support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    mlflow.openai.autolog()
    lookup_order = support_task.lookup_order_failing(lookup_fails)
    tools = {
        "lookup_order": mlflow.trace(lookup_order, name="lookup_order", span_type=SpanType.TOOL),
        "refund": mlflow.trace(support_task.refund, span_type=SpanType.TOOL),
    }

    @mlflow.trace(name="support", span_type=SpanType.AGENT)
    def support(task: str) -> str:
        assert task == support_task.TASK
        return support_task.openai_agent_run(
            server.base_url, MODEL, tools=tools, stream=stream, offer_tools=True
        )

    with FakeOpenAI() as server:
        answer = support(support_task.TASK)
    assert answer == support_task.FINAL_ANSWER, answer
    flushed()


RUNS = {
    "mlflow-openai": lambda provider: mlflow_openai_run(provider),
    "mlflow-openai-stream": functools.partial(mlflow_openai_run, stream=True),
    "mlflow-openai-tool-error": functools.partial(mlflow_openai_run, lookup_fails=True),
    "mlflow-openai-genai": functools.partial(mlflow_openai_run, genai_semconv=True),
}
