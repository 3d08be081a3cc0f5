"""A new trace is inserted once, whole; one created by another request meanwhile is extended."""

import threading
import time
from datetime import timedelta

import psycopg
import pytest
from django.db import connection, transaction
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
    real_lock = store.traces_lock_with_spans
    calls = []

    def lock_missing_once(project_pk, external_ids, days):
        calls.append(external_ids)
        return ([], {}) if len(calls) == 1 else real_lock(project_pk, external_ids, days)

    monkeypatch.setattr(store, "traces_lock_with_spans", lock_missing_once)
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
    (locked,), spans = store.traces_lock_with_spans(
        project.pk, [trace.external_id], [trace.spans_day]
    )
    stored = spans[trace.pk]
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


def test_spans_of_a_trace_on_a_day_not_named_are_read_all_the_same(project):
    # given a stored trace whose spans lie on its own day
    send(recorded_spans()[:6])
    trace = Trace.objects.get()
    # when ingest locks it naming other days only
    other_day = trace.spans_day - timedelta(days=3)
    _, spans = store.traces_lock_with_spans(project.pk, [trace.external_id], [other_day])
    # then its stored spans are read from its day
    assert sorted(span.pk for span in spans[trace.pk]) == sorted(
        Span.objects.filter(trace=trace).values_list("pk", flat=True)
    )


def _other_connection():
    settings = connection.settings_dict
    return psycopg.connect(
        dbname=settings["NAME"],
        user=settings["USER"],
        password=settings["PASSWORD"],
        host=settings["HOST"],
        port=settings["PORT"],
    )


@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite has one writer")
@pytest.mark.django_db(transaction=True)
def test_spans_stored_while_the_lock_waited_are_read():
    # given a stored trace, locked by another request that has written a new version of it
    Project.objects.create(slug="default", name="Default")
    send(recorded_spans()[:4])
    trace = Trace.objects.get()
    other = _other_connection()
    other.execute("UPDATE traces_trace SET span_count = span_count WHERE id = %s", [trace.pk])
    found = {}

    def lock_and_read():
        try:
            with transaction.atomic():
                found["spans"] = store.traces_lock_with_spans(
                    trace.project_id, [trace.external_id], [trace.spans_day]
                )[1]
        finally:
            connection.close()

    reader = threading.Thread(target=lock_and_read)
    reader.start()
    # when the other request stores a span and commits while ingest waits for the lock
    for _ in range(100):
        waiting = other.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND datname = current_database()"
        ).fetchone()[0]
        if waiting:
            break
        time.sleep(0.05)
    columns = [f.column for f in Span._meta.concrete_fields if not f.primary_key]
    copied = ", ".join("'late'" if column == "span_id" else column for column in columns)
    other.execute(
        f"INSERT INTO traces_span ({', '.join(columns)}) "  # noqa: S608 - the model's names
        f"SELECT {copied} FROM traces_span WHERE trace_id = %s LIMIT 1",
        [trace.pk],
    )
    other.commit()
    other.close()
    reader.join(timeout=30)
    # then ingest, locking the trace after that commit, read the span too
    assert waiting
    assert sorted(span.span_id for span in found["spans"][trace.pk]) == sorted(
        Span.objects.filter(trace=trace).values_list("span_id", flat=True)
    )
    assert len(found["spans"][trace.pk]) == 5
