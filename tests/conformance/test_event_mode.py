"""opentelemetry-instrumentation-openai-v2 in event mode, run for real against the fake OpenAI
server: the model calls' content comes only as `gen_ai.client.inference.operation.details` log
records, sent to /v1/logs before or after the spans, and the trace still gets its task, answer
and messages. (This version always writes the latest conventions; the pre-1.37 per-message
events are covered by tests/traces/test_otlp_logs.py and bench/fidelity.py.)"""

import pytest

from accounts.roles import ANNOTATOR
from tests.conformance import support_task
from tests.conformance.fake_openai import PROMPT_TOKENS
from tests.conformance.harness import (
    PROJECT,
    capturing_provider,
    export_to_evalsite,
    openai_v2_support_run,
)
from tests.factories import UserFactory
from traces.messages import messages_read
from traces.models import Span, SpanKind, Trace

pytestmark = pytest.mark.django_db


def _run_support_agent(monkeypatch):
    from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor

    # Content in events only: the spans carry none of it.
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "EVENT_ONLY")
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_EMIT_EVENT", "true")
    provider, exporter = capturing_provider("support")
    logs = InMemoryLogRecordExporter()
    logger_provider = LoggerProvider()
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    openai_v2_support_run(provider, logger_provider=logger_provider)
    return exporter, encode_logs(logs.get_finished_logs())


@pytest.mark.parametrize("logs_first", [False, True])
def test_event_mode_content_arrives_as_logs(api_client_for, monkeypatch, logs_first):
    api = api_client_for(UserFactory(roles=[ANNOTATOR]))
    exporter, logs = _run_support_agent(monkeypatch)
    names = {
        r.event_name for rl in logs.resource_logs for sl in rl.scope_logs for r in sl.log_records
    }
    assert names == {"gen_ai.client.inference.operation.details"}
    spans = exporter.get_finished_spans()
    assert not any("gen_ai.input.messages" in (span.attributes or {}) for span in spans)

    def send_logs():
        response = api.generic(
            "POST",
            "/v1/logs",
            logs.SerializeToString(),
            content_type="application/x-protobuf",
            HTTP_X_EVALSITE_PROJECT=PROJECT,
        )
        assert response.status_code == 200, response.content

    if logs_first:
        send_logs()
        trace = export_to_evalsite(api, exporter)
    else:
        trace = export_to_evalsite(api, exporter)
        send_logs()
    trace = Trace.objects.get(pk=trace.pk)
    assert trace.task == support_task.TASK
    assert trace.final_answer == support_task.FINAL_ANSWER
    calls = Span.objects.filter(trace=trace, kind=SpanKind.LLM).order_by("position")
    assert calls.count() == 3
    assert trace.input_tokens == 3 * PROMPT_TOKENS
    last_input = messages_read(calls.last().input) or []
    assert [m.role for m in last_input][:2] == ["system", "user"]
