"""A new trace is inserted once, whole; one created by another request meanwhile is extended."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.traces import otel_agents
from tests.traces.test_ingest_otlp import recorded_spans, send
from traces import span_partitions
from traces.ingest import store
from traces.models import Project, Session, Span, Trace, utc_today

pytestmark = pytest.mark.django_db


@pytest.fixture
def project():
    return Project.objects.create(slug="default", name="Default")


def test_a_new_trace_is_written_by_one_insert_and_no_update(project):
    # given one new trace's spans
    spans = recorded_spans()
    # when
    with CaptureQueriesContext(connection) as queries:
        send(spans)
    # then its row was written once (COPY on PostgreSQL), with the values its spans gave it
    trace_writes = [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"]
        .lstrip()
        .startswith(('INSERT INTO "traces_trace"', 'COPY "traces_trace"', 'UPDATE "traces_trace"'))
    ]
    assert len(trace_writes) == 1 and trace_writes[0].startswith(("INSERT", "COPY"))
    trace = Trace.objects.get()
    assert trace.span_count == 11
    assert trace.task == otel_agents.TRAVEL_TASK
    assert trace.session == Session.objects.get(external_id="conv_000000")
    assert trace.last_span_received_at is not None


def test_a_trace_created_meanwhile_is_locked_and_extended(project, monkeypatch):
    # given a trace stored with its first spans, and a lookup that misses it once, as when
    # another request inserts it between our lookup and our insert
    spans = recorded_spans()
    send(spans[:4])
    real_lock = store.traces_lock
    calls = []

    def lock_missing_once(project_pk, external_ids):
        calls.append(external_ids)
        return [] if len(calls) == 1 else real_lock(project_pk, external_ids)

    monkeypatch.setattr(store, "traces_lock", lock_missing_once)
    # when the rest of its spans come
    result = send(spans[2:])
    # then the insert gave way, the second attempt extended the stored trace
    assert len(calls) == 2
    assert result.stored_count == 7 and result.duplicate_count == 2
    trace = Trace.objects.get()
    assert trace.span_count == 11
    assert Span.objects.filter(trace=trace).count() == 11
    positions = list(trace.spans.order_by("position").values_list("position", flat=True))
    assert positions == list(range(11))
    assert Session.objects.get().trace_count == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite inserts with the ORM")
def test_an_otlp_request_stores_in_its_own_transaction_without_a_savepoint(project, monkeypatch):
    # given today's partition known, as once a request has committed (tests never commit)
    monkeypatch.setattr(span_partitions, "_known_days", {utc_today()})
    # when a request brings a new trace
    with CaptureQueriesContext(connection) as queries:
        send(recorded_spans())
    # then the store took no savepoint of its own: the request's transaction is the only one
    # (a savepoint here, inside the test's transaction)
    savepoints = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("SAVEPOINT")]
    assert len(savepoints) == 1
    assert Trace.objects.get().span_count == 11


def test_the_rows_read_back_in_binary_hold_what_the_orm_reads(project):
    # given a stored trace whose first spans came in an earlier request
    spans = recorded_spans()
    send(spans[:6])
    trace = Trace.objects.get()
    # when ingest locks it and reads its stored spans (rows in PostgreSQL's binary form)
    (locked,) = store.traces_lock(project.pk, [trace.external_id])
    stored = store.spans_stored({trace.pk: trace.spans_day})[trace.pk]
    # then every value is the ORM's, times in the same zone and JSON decoded
    for name, value in locked.items():
        expected = getattr(trace, "pk" if name == "pk" else name)
        assert value == expected, name
        assert type(value) is type(expected), name
    assert locked["started_at"].tzinfo == trace.started_at.tzinfo
    assert isinstance(locked["context"], dict) and isinstance(locked["attributes"], dict)
    by_pk = {span.pk: span for span in Span.objects.filter(trace=trace)}
    assert len(stored) == len(by_pk) == 6
    for span in stored:
        orm = by_pk[span.pk]
        for name in span._fields:
            assert getattr(span, name) == getattr(orm, name), name
            assert type(getattr(span, name)) is type(getattr(orm, name)), name
        assert span.started_at.tzinfo == orm.started_at.tzinfo
