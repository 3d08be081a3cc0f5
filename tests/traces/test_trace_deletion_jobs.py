"""Deleting a filter's traces in the background: a chunk a transaction, resumable from its
cursor, what keeps a trace still keeps it, newer traces untouched, stoppable, and refused
once whoever asked is no longer a curator."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.http import QueryDict
from django.utils import timezone

from accounts.roles import CURATOR
from core.errors import ApplicationError
from reviews.models import AuditEvent
from tests.factories import GoldenExampleFactory, TraceFactory
from tests.traces.test_trace_deletion import KEPT_BY_EXAMPLE
from traces import deletion_jobs, tasks
from traces.deletion_jobs import (
    trace_deletion_run,
    trace_deletion_start,
    trace_deletion_stop,
    trace_deletions_stale_ids,
)
from traces.models import Trace, TraceDeletion

pytestmark = pytest.mark.django_db

Status = TraceDeletion.Status
QUERY = QueryDict("agent_version=2.0.0")


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(deletion_jobs, "CHUNK", 2)


def _agent_traces(count=5):
    """`count` traces of agent v2, the second promoted to golden, and one trace of v1."""
    traces = [TraceFactory(agent_version="2.0.0", task=f"Refund {n}") for n in range(count)]
    GoldenExampleFactory(source_trace=traces[1])
    other = TraceFactory(agent_version="1.0.0", task="Another agent version")
    return traces, other


def _started(user, **kwargs):
    traces = Trace.objects.filter(agent_version="2.0.0")
    return trace_deletion_start(user=user, traces=traces, query=QUERY, **kwargs)


def test_chunk_by_chunk_the_unkept_traces_go_and_the_kept_are_counted(curator, small_chunks):
    traces, other = _agent_traces()
    deletion = _started(curator)
    assert (deletion.status, deletion.matched, deletion.up_to_trace_id) == (
        Status.WAITING,
        5,
        traces[-1].pk,
    )

    assert trace_deletion_run(deletion.pk, seconds=0) is True  # one chunk, then hands over
    deletion.refresh_from_db()
    assert (deletion.status, deletion.after_trace_id) == (Status.RUNNING, traces[1].pk)
    assert (deletion.deleted, deletion.kept) == (1, 1)

    assert trace_deletion_run(deletion.pk) is False
    deletion.refresh_from_db()
    assert deletion.status == Status.DONE and deletion.finished_at is not None
    assert (deletion.deleted, deletion.kept, deletion.percent) == (4, 1, 100)
    assert deletion.kept_by == {KEPT_BY_EXAMPLE: 1}
    assert deletion.kept_sample == [traces[1].pk]
    assert set(Trace.objects.values_list("pk", flat=True)) == {traces[1].pk, other.pk}
    deleted_ids = set(
        AuditEvent.objects.filter(action="trace_delete").values_list("object_id", flat=True)
    )
    assert deleted_ids == {str(t.pk) for t in traces if t.pk != traces[1].pk}


def test_traces_newer_than_the_request_stay(curator):
    traces, _ = _agent_traces(count=2)
    deletion = _started(curator)
    newer = TraceFactory(agent_version="2.0.0", task="Arrived after the request")

    trace_deletion_run(deletion.pk)

    deletion.refresh_from_db()
    assert (deletion.status, deletion.deleted, deletion.kept) == (Status.DONE, 1, 1)
    assert Trace.objects.filter(pk=newer.pk).exists()


def test_a_chunk_that_fails_midway_leaves_its_traces_and_cursor_as_they_were(
    curator, small_chunks, monkeypatch
):
    traces, _ = _agent_traces()
    deletion = _started(curator)
    trace_deletion_run(deletion.pk, seconds=0)
    real = deletion_jobs.traces_chunk_delete

    def dies_after_deleting(ids, user):
        real(ids, user)
        raise RuntimeError("worker lost its database connection")

    monkeypatch.setattr(deletion_jobs, "traces_chunk_delete", dies_after_deleting)
    with pytest.raises(RuntimeError):
        trace_deletion_run(deletion.pk)
    deletion.refresh_from_db()
    assert (deletion.after_trace_id, deletion.deleted) == (traces[1].pk, 1)
    assert Trace.objects.filter(pk__in=[traces[2].pk, traces[3].pk]).count() == 2

    monkeypatch.setattr(deletion_jobs, "traces_chunk_delete", real)
    trace_deletion_run(deletion.pk)  # the message again: it resumes after the cursor
    deletion.refresh_from_db()
    assert (deletion.status, deletion.deleted, deletion.kept) == (Status.DONE, 4, 1)


def test_a_stopped_deletion_deletes_no_further_chunk(curator, small_chunks):
    _agent_traces()
    deletion = _started(curator)
    trace_deletion_run(deletion.pk, seconds=0)

    trace_deletion_stop(deletion=deletion, user=curator)
    assert trace_deletion_run(deletion.pk) is False
    deletion.refresh_from_db()
    assert (deletion.status, deletion.deleted) == (Status.STOPPED, 1)
    assert deletion.error == "Stopped by cora."
    assert Trace.objects.filter(agent_version="2.0.0").count() == 4
    with pytest.raises(ApplicationError) as again:
        trace_deletion_stop(deletion=deletion, user=curator)
    assert again.value.status_code == 409


def test_it_fails_once_whoever_asked_is_no_longer_a_curator(curator):
    _agent_traces()
    deletion = _started(curator)
    curator.groups.remove(Group.objects.get(name=CURATOR))

    assert trace_deletion_run(deletion.pk) is False
    deletion.refresh_from_db()
    assert deletion.status == Status.FAILED
    assert "no longer a curator" in deletion.error
    assert Trace.objects.filter(agent_version="2.0.0").count() == 5


def test_only_curators_start_one_and_an_empty_selection_is_refused(curator, annotator):
    _agent_traces()
    with pytest.raises(ApplicationError) as refused:
        _started(annotator)
    assert refused.value.status_code == 403
    with pytest.raises(ApplicationError) as empty:
        trace_deletion_start(user=curator, traces=Trace.objects.none(), query=QUERY)
    assert empty.value.field == "filter"
    assert not TraceDeletion.objects.exists()


def test_it_is_published_on_commit_and_again_by_the_sweep_once_stale(
    curator, monkeypatch, django_capture_on_commit_callbacks
):
    published = []
    monkeypatch.setattr(deletion_jobs, "task_publish", lambda task, *a: published.append(a))
    _agent_traces()
    with django_capture_on_commit_callbacks(execute=True):
        deletion = _started(curator)
    assert published == [(deletion.pk,)]

    assert trace_deletions_stale_ids() == []
    old = timezone.now() - deletion_jobs.STALE_AFTER - timedelta(seconds=1)
    TraceDeletion.objects.filter(pk=deletion.pk).update(updated_at=old)
    assert trace_deletions_stale_ids() == [deletion.pk]
    assert trace_deletions_stale_ids() == []  # published again once a STALE_AFTER, not a sweep
    TraceDeletion.objects.filter(pk=deletion.pk).update(updated_at=old)
    resumed = []
    monkeypatch.setattr(tasks, "tasks_publish_each", lambda task, ids: resumed.append(ids))
    tasks.trace_deletions_resume_task()
    assert resumed == [[deletion.pk]]


def test_the_task_hands_over_to_a_new_message_while_more_remains(
    curator, small_chunks, monkeypatch
):
    published = []
    monkeypatch.setattr(tasks, "task_publish", lambda task, *a: published.append(a))
    monkeypatch.setattr(deletion_jobs, "RUN_SECONDS", 0.0)
    _agent_traces()
    deletion = _started(curator)

    tasks.trace_deletion_task(deletion.pk)
    assert published == [(deletion.pk,)]
    monkeypatch.setattr(deletion_jobs, "RUN_SECONDS", 60.0)
    tasks.trace_deletion_task(deletion.pk)
    assert published == [(deletion.pk,)]
    deletion.refresh_from_db()
    assert deletion.status == Status.DONE
