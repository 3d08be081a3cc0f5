"""Trace ingestion on the real database: concurrent requests for one trace, odd bytes, and the
settle sweep through a real Celery worker."""

from datetime import timedelta

import pytest
from django.utils import timezone
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

from tests.integration.conftest import at_the_same_moment, wait_for
from tests.traces import otel_agents
from tests.traces.test_ingest_otlp import recorded_spans
from traces.ingest.services import ingest_otlp, ingest_span_tree
from traces.models import Project, Span, Trace
from traces.tasks import trace_settle_sweep_task

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _send(spans):
    ingest_otlp(body=encode_spans(spans).SerializeToString(), content_type="application/x-protobuf")


def test_concurrent_requests_for_one_trace_store_every_span_once():
    # given one trace's 11 spans split over 4 requests, plus two requests re-sending spans
    Project.objects.create(slug="default", name="Default")
    spans = recorded_spans()
    chunks = [spans[0:3], spans[3:6], spans[6:9], spans[9:], spans[2:8], spans[::2]]
    # when all send at the same moment
    errors = at_the_same_moment(_send, chunks)
    # then
    assert errors == []
    trace = Trace.objects.get()
    assert Span.objects.filter(trace=trace).count() == 11
    assert trace.span_count == 11
    assert trace.task == otel_agents.TRAVEL_TASK
    assert trace.final_answer == otel_agents.TRAVEL_ANSWER
    assert trace.input_tokens == sum(1400 + 300 * i for i in range(5))
    positions = list(trace.spans.order_by("position").values_list("position", flat=True))
    assert positions == list(range(11))


def test_nul_characters_do_not_break_the_request():
    project = Project.objects.create(slug="support", name="Support")
    tree = {
        "name": "invoke_agent\x00support",
        "input": "order \x00A1042",
        "children": [{"name": "lookup", "type": "tool", "output": {"raw": "a\x00b"}}],
    }
    trace = ingest_span_tree(project, tree)
    assert trace.task == "order \ufffdA1042"
    assert Span.objects.get(name="lookup").output == {"raw": "a\ufffdb"}


def test_settle_sweep_completes_a_trace_through_a_real_worker(celery_worker, settings):
    # given a trace whose last span came longer ago than the settle time
    project = Project.objects.create(slug="travel", name="Travel")
    trace = ingest_span_tree(
        project,
        {
            "trace_id": "9" * 32,
            "name": "invoke_agent travel",
            "type": "agent",
            "input": "Book LIS-BER on 14 May",
            "output": "Booked TP 542.",
            "start_time": "2026-11-20T10:00:00Z",
            "end_time": "2026-11-20T10:00:09Z",
            "children": [
                {
                    "name": "search_flights",
                    "type": "tool",
                    "start_time": "2026-11-20T10:00:01Z",
                    "end_time": "2026-11-20T10:00:02Z",
                    "input": {"origin": "LIS"},
                    "output": {"flights": ["TP542"]},
                }
            ],
        },
    )
    Trace.objects.filter(pk=trace.pk).update(
        last_span_received_at=timezone.now() - timedelta(seconds=settings.TRACE_SETTLE_SECONDS + 5)
    )
    # when the sweep runs on the worker
    trace_settle_sweep_task.delay()
    # then
    wait_for(
        lambda: Trace.objects.get(pk=trace.pk).completed_at is not None,
        timeout=60,
        message=f"trace not completed:\n{celery_worker.log_tail()}",
    )
