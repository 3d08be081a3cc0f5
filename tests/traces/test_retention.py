"""Retention: a project's old traces go in bounded batches; what anything relies on stays."""

from datetime import timedelta

import pytest
from django.utils import timezone

from judges.models import JudgeRunStatus
from metrics.models import RedFlag, RedFlagCheck
from tests.factories import (
    JudgeRunFactory,
    JudgmentFactory,
    ProjectFactory,
    ReviewItemFactory,
    SpanFactory,
    TraceFactory,
)
from tests.traces.retention_keepers import eval_trial, golden_source
from traces import tasks
from traces.models import Feedback, Span, Trace
from traces.retention import project_traces_expire, traces_expire

pytestmark = pytest.mark.django_db


def _trace(project, days_old: float, spans: int = 2) -> Trace:
    trace = TraceFactory(project=project)
    for index in range(spans):
        SpanFactory(trace=trace, span_id=f"s{index}", position=index)
    Trace.objects.filter(pk=trace.pk).update(created_at=timezone.now() - timedelta(days=days_old))
    return trace


@pytest.fixture
def project():
    return ProjectFactory(retention_days=30)


def test_an_old_trace_goes_with_all_it_holds_and_a_recent_one_stays(project):
    # given an old trace with spans, a red flag, feedback and a finished judge run's pass
    old, recent = _trace(project, 31), _trace(project, 29)
    RedFlag.objects.create(trace=old, span=old.spans.first(), kind=RedFlag.Kind.LOOP, detail="x")
    Feedback.objects.create(trace=old, kind="thumbs", value=0, key="k1")
    RedFlagCheck.objects.create(trace=old, checked_at=timezone.now())
    JudgmentFactory(trace=old, run=JudgeRunFactory(status=JudgeRunStatus.DONE))
    # when
    removed = traces_expire()
    # then
    assert removed == 1
    assert list(Trace.objects.values_list("pk", flat=True)) == [recent.pk]
    assert not Span.objects.filter(trace_id=old.pk).exists()
    assert Span.objects.filter(trace=recent).count() == 2
    assert not RedFlag.objects.exists() and not Feedback.objects.exists()
    assert not RedFlagCheck.objects.exists()


def test_a_project_without_retention_keeps_everything():
    _trace(ProjectFactory(retention_days=None), 3650)
    assert traces_expire() == 0 and Trace.objects.count() == 1


def test_a_golden_examples_source_trace_stays(project):
    source = _trace(project, 400)
    golden_source(source)
    assert traces_expire() == 0 and Trace.objects.filter(pk=source.pk).exists()


def test_a_trace_under_review_stays_even_once_settled(project):
    open_item, settled = _trace(project, 400), _trace(project, 400)
    ReviewItemFactory(trace=open_item)
    ReviewItemFactory(trace=settled, status="resolved")
    assert traces_expire() == 0 and Trace.objects.count() == 2


def test_an_eval_runs_trial_trace_stays(project):
    trial_trace = _trace(project, 400)
    eval_trial(trial_trace)
    assert traces_expire() == 0 and Trace.objects.filter(pk=trial_trace.pk).exists()


@pytest.mark.parametrize("status", [JudgeRunStatus.PENDING, JudgeRunStatus.RUNNING])
def test_a_trace_a_judge_run_is_still_judging_stays(project, status):
    judged = _trace(project, 400)
    JudgmentFactory(trace=judged, run=JudgeRunFactory(status=status))
    assert traces_expire() == 0 and Trace.objects.filter(pk=judged.pk).exists()


def test_batches_are_bounded_oldest_first_and_the_next_one_goes_on(project):
    # given five expired traces of different ages
    traces = [_trace(project, 100 - day, spans=1) for day in range(5)]
    # when two batches of two run
    assert project_traces_expire(project, limit=2) == 2
    assert set(Trace.objects.values_list("pk", flat=True)) == {t.pk for t in traces[2:]}
    assert project_traces_expire(project, limit=2) == 2
    # then the last one goes in the third, and a fourth finds nothing
    assert project_traces_expire(project, limit=2) == 1
    assert project_traces_expire(project, limit=2) == 0


def test_the_task_enqueues_itself_again_after_a_full_batch(project, monkeypatch):
    for day in range(3):
        _trace(project, 40 + day, spans=1)
    again = []
    monkeypatch.setattr(tasks, "RETENTION_BATCH", 2)
    monkeypatch.setattr(tasks.trace_retention_task, "delay", lambda: again.append(True))
    assert tasks.trace_retention_task() == 2 and again == [True]
    assert tasks.trace_retention_task() == 1 and again == [True]
    assert Trace.objects.count() == 0


def test_retention_is_set_on_the_projects_page_and_must_be_a_day_or_more(client, curator):
    project = ProjectFactory(name="Support", slug="support")
    client.force_login(curator)
    form = {"project": project.pk, "name": "Support", "slug": "support"}
    refused = client.post("/traces/projects/", {**form, "retention_days": "0"})
    assert refused.status_code == 200 and "retention_days" in refused.context["form"].errors
    client.post("/traces/projects/", {**form, "retention_days": "90"})
    project.refresh_from_db()
    assert project.retention_days == 90
    assert "90 days" in client.get("/traces/projects/").content.decode()


def test_every_relation_a_trace_does_not_own_keeps_it():
    from traces.retention import TRACE_OWNS, trace_keepers

    keepers = {name for name, _ in trace_keepers()}
    assert {"review_items", "golden_examples", "evaltrial", "judgments"} <= keepers
    assert {rel.name for rel in Trace._meta.related_objects} <= keepers | TRACE_OWNS


def test_a_sessions_old_traces_stay_while_the_conversation_is_recent_or_reviewed(project):
    from traces.models import Session

    # given a conversation with an old and a recent turn, one reviewed as a whole, one done
    live = Session.objects.create(project=project, external_id="conv-live")
    reviewed = Session.objects.create(project=project, external_id="conv-reviewed")
    done = Session.objects.create(project=project, external_id="conv-done")
    turns = {}
    for session, ages in ((live, (90, 1)), (reviewed, (90, 85)), (done, (90, 80))):
        turns[session.pk] = [_trace(project, age, spans=1) for age in ages]
        Trace.objects.filter(pk__in=[t.pk for t in turns[session.pk]]).update(session=session)
    ReviewItemFactory(trace=turns[reviewed.pk][1], session=reviewed)
    # when
    removed = traces_expire()
    # then only the finished, unreviewed conversation's turns went
    assert removed == 2
    assert not Trace.objects.filter(session=done).exists()
    assert Trace.objects.filter(session=live).count() == 2
    assert Trace.objects.filter(session=reviewed).count() == 2


def test_a_trace_checked_for_red_flags_still_goes(project):
    # given an old trace whose red flags were computed (the check marker is judges' own row)
    old = _trace(project, 31)
    RedFlagCheck.objects.create(trace=old, checked_at=timezone.now())
    # when
    removed = traces_expire()
    # then the marker goes with it instead of keeping it forever
    assert removed == 1
    assert not RedFlagCheck.objects.exists()


def test_a_relation_no_app_declared_stops_retention_instead_of_losing_rows(project, monkeypatch):
    from django.core.exceptions import ImproperlyConfigured

    from traces import retention

    _trace(project, 31)
    monkeypatch.setattr(retention, "TRACE_OWNS", retention.TRACE_OWNS - {"verdicts"})
    with pytest.raises(ImproperlyConfigured, match="Trace.verdicts"):
        traces_expire()
    assert Trace.objects.count() == 1


def test_deleting_a_project_still_deletes_its_spans():
    # given spans, whose key to their trace has no constraint in the database
    span = SpanFactory()
    # when
    span.trace.project.delete()
    # then the ORM's cascade took them
    assert not Span.objects.exists()
