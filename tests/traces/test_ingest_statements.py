"""The statements one OTLP export request costs, counted, so the count cannot grow unseen.

An exporter sends 64 spans a request as often as 512; below a few hundred spans the fixed cost
of a request (a parse, a plan and a round trip a statement) is most of ingest's CPU. The
requests here are what a batching exporter sends mid-stream: new traces, and the rest of
traces whose first spans came in the request before (so the stored spans are read, positions
move, verdicts go stale)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.traces import otel_agents
from traces.ingest.services import ingest_otlp
from traces.models import Project, Span, Trace

pytestmark = pytest.mark.django_db

# On PostgreSQL, as a test counts them (its transaction turns BEGIN and COMMIT into a
# savepoint and its release): a request that extends stored traces and starts new ones sends
# the trace lock with the stored spans, sessions, one statement for the trace rows (new and
# extended) and the moved positions, the span COPY, one for the stale verdicts and the red
# flags checked, and the held-out keys.
STATEMENTS_MAX = 8
# A request of new traces in stored sessions reads no stored spans and moves nothing, but adds
# to its sessions' totals (one statement locks and updates them) and marks their verdicts stale.
STATEMENTS_MAX_NEW_ONLY = 9


def _bodies(runs: int, per_request: int) -> list[bytes]:
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "travel"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    for run in range(runs):
        otel_agents.travel_agent_run(otel_agents.tracer_for(provider), padding=200, run=run)
    spans = list(memory.get_finished_spans())
    return [
        encode_spans(spans[i : i + per_request]).SerializeToString()
        for i in range(0, len(spans), per_request)
    ]


def _statements(body: bytes) -> list[str]:
    """What the request sent the database; the test's own transaction turns the request's
    BEGIN and COMMIT into a savepoint and its release (counted as they stand for them)."""
    with CaptureQueriesContext(connection) as queries:
        ingest_otlp(body=body, content_type="application/x-protobuf")
    return [query["sql"][:90] for query in queries.captured_queries]


def _warm_up(on_commit) -> None:
    """What a process does once in a while (column types, today's partition and the project,
    remembered once a request commits), done by earlier requests: one of another project, and
    one that makes the default project and its sessions, sent again to read the project."""
    Project.objects.create(slug="warm-up", name="Warm-up")
    body = _bodies(1, 64)[0]
    for project_slug in ("warm-up", None, None):
        with on_commit(execute=True):
            ingest_otlp(body=body, content_type="application/x-protobuf", project_slug=project_slug)


def test_a_64_span_request_costs_a_fixed_number_of_statements(
    django_capture_on_commit_callbacks,
):
    _warm_up(django_capture_on_commit_callbacks)
    # 24 runs of 11 spans in requests of 64: most requests split a trace with the next one.
    bodies = _bodies(24, 64)
    first = _statements(bodies[0])
    assert len(first) <= STATEMENTS_MAX_NEW_ONLY, "\n".join(first)
    for body in bodies[1:]:
        statements = _statements(body)
        assert len(statements) <= STATEMENTS_MAX, "\n".join(statements)
    # the 24 runs and the warm-up's
    assert Trace.objects.filter(project__slug="default").count() == 25
    assert Span.objects.filter(trace__project__slug="default").count() == 25 * 11


def test_the_count_does_not_grow_with_the_spans_a_request_carries(
    django_capture_on_commit_callbacks,
):
    _warm_up(django_capture_on_commit_callbacks)
    small = _statements(_bodies(6, 64)[0])
    Trace.objects.all().delete()
    large = _statements(_bodies(50, 512)[0])
    assert len(large) <= len(small), "\n".join(large)
