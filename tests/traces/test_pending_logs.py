"""OTLP log records that wait for their span: they never wait forever, a record that missed its
span in a race is joined late, and span ingest of a project that sent no logs does not look."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.traces.shape_spans import LogRecorder, Recorder, send, send_logs
from traces.ingest import span_logs
from traces.models import PendingSpanLog, Project, Span, Trace
from traces.tasks import trace_retention_task, trace_settle_sweep_task

MODEL_CALL = {
    "gen_ai.operation.name": "chat",
    "gen_ai.request.model": "gpt-4o-mini",
    "gen_ai.usage.input_tokens": 40,
    "gen_ai.usage.output_tokens": 8,
}
TASK = "Where is order 42?"


def _event_mode_call(task: str = TASK):
    spans, logs = Recorder(), LogRecorder()
    agent = spans.span("invoke_agent support", {"gen_ai.operation.name": "invoke_agent"})
    with agent, spans.span("chat gpt-4o-mini", MODEL_CALL) as call:
        logs.event(call, "gen_ai.user.message", {"content": task})
        logs.event(
            call,
            "gen_ai.choice",
            {"index": 0, "finish_reason": "stop", "message": {"content": "It ships today."}},
        )
    return spans.spans(), logs.request()


@pytest.fixture(autouse=True)
def _fresh_memory():
    span_logs.pending_logs_known.clear()
    yield
    span_logs.pending_logs_known.clear()


@pytest.mark.django_db
def test_records_whose_span_never_comes_expire_counted_on_their_project(
    client, curator, monkeypatch
):
    # (the job's spans-partition work takes its own connection, which would wait for this
    # test's transaction: it is left out here)
    monkeypatch.setattr("traces.tasks.span_partitions_create_ahead", lambda: None)
    monkeypatch.setattr("traces.tasks.spans_day_expire_oldest", lambda: None)
    # given records of a span that never came, sent 25 hours ago, and records sent just now
    _, old_logs = _event_mode_call()
    send_logs(old_logs)
    PendingSpanLog.objects.update(received_at=timezone.now() - timedelta(hours=25))
    _, new_logs = _event_mode_call("A newer question")
    send_logs(new_logs)
    # when the hourly retention job runs
    trace_retention_task()
    # then the old ones are counted on the project, not kept waiting and not lost unseen
    project = Project.objects.get(slug="shapes")
    assert project.log_records_unjoined == 2
    assert PendingSpanLog.objects.count() == 1  # the new ones still wait
    client.force_login(curator)
    page = client.get("/traces/projects/").content.decode()
    assert "2 log records never joined" in page


@pytest.mark.django_db
def test_the_wait_is_a_setting(settings):
    settings.PENDING_LOG_HOURS = 48
    _, logs = _event_mode_call()
    send_logs(logs)
    PendingSpanLog.objects.update(received_at=timezone.now() - timedelta(hours=25))
    assert span_logs.pending_logs_expire() == 0
    assert span_logs.pending_logs_expire(timezone.now() + timedelta(hours=24)) == 2
    assert not PendingSpanLog.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_record_committed_in_the_same_instant_as_its_span_is_joined_by_the_settle_sweep(
    monkeypatch,
):
    # given the spans' request, which has just looked for waiting records (none yet), and the
    # logs' request, which runs to its commit in that instant and finds no span (not committed)
    Project.objects.create(slug="shapes", name="Shapes")  # made before: neither request waits
    spans, logs = _event_mode_call()
    looked = span_logs.pending_logs_apply

    def logs_commit_meanwhile(project, records):
        found = looked(project, records)
        other = threading.Thread(target=_send_logs_elsewhere, args=(logs,))
        other.start()
        other.join()
        return found

    monkeypatch.setattr("traces.ingest.store.pending_logs_apply", logs_commit_meanwhile)
    send(spans)
    monkeypatch.undo()
    assert PendingSpanLog.objects.count() == 1  # the race: each missed the other
    assert Trace.objects.get().task == ""
    # when the settle sweep runs (every 10 s, before traces complete)
    trace_settle_sweep_task()
    # then the records are joined to their span
    assert not PendingSpanLog.objects.exists()
    trace = Trace.objects.get()
    assert (trace.task, trace.final_answer) == (TASK, "It ships today.")
    call = Span.objects.get(name="chat gpt-4o-mini")
    assert [e["name"] for e in call.attributes["otel.logs"]] == [
        "gen_ai.user.message",
        "gen_ai.choice",
    ]
    assert (trace.input_tokens, trace.span_count) == (40, 2)


def _send_logs_elsewhere(logs):
    try:
        result = send_logs(logs)
        assert (result.joined, result.pending) == (0, 2)
    finally:
        connection.close()


@pytest.mark.django_db
def test_a_span_resent_while_its_records_wait_keeps_them_for_the_sweep():
    # given spans stored while this process remembered "no records waiting", whose records
    # arrived through another process meanwhile
    spans, logs = _event_mode_call()
    send(spans)
    span_logs.pending_logs_known.get(Project.objects.get().pk, lambda: False)
    project = Project.objects.get()
    PendingSpanLog.objects.create(
        project=project,
        trace_external_id=Trace.objects.get().external_id,
        span_id=Span.objects.get(name="chat gpt-4o-mini").span_id,
        events=[{"name": "gen_ai.user.message", "time": None, "attributes": {"content": TASK}}],
    )
    span_logs.pending_logs_known.clear()
    # when the exporter re-sends the spans (a retry): they are stored already
    send(spans)
    # then the records are not taken by spans that are not stored again
    assert PendingSpanLog.objects.count() == 1
    trace_settle_sweep_task()
    assert Trace.objects.get().task == TASK
    assert not PendingSpanLog.objects.exists()


@pytest.mark.django_db
def test_span_ingest_of_a_project_without_waiting_records_does_not_look_for_them():
    first, _ = _event_mode_call()
    send(first)
    second, _ = _event_mode_call("Another question")
    table = PendingSpanLog._meta.db_table
    with CaptureQueriesContext(connection) as queries:
        send(second)
    assert Trace.objects.count() == 2
    assert not [q for q in queries.captured_queries if table in q["sql"]]
