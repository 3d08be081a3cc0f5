"""Online session judging through the real stack: the periodic task on a `celery worker`
process finds a conversation gone quiet and judges it whole, once."""

from datetime import timedelta

import pytest
from django.utils import timezone

from judges.models import (
    CalibrationStatus,
    JudgeCalibration,
    JudgeRun,
    JudgeRunScope,
    Judgment,
    JudgmentStatus,
    Rubric,
    Verdict,
)
from judges.rubrics import rubric_online_update
from judges.services import judge_config_default
from judges.session_online import sessions_judge_idle
from judges.tasks import sessions_judge_idle_task
from tests.integration.conftest import wait_for
from traces.ingest.services import ingest_span_tree
from traces.models import Project, Session

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def exchange(minute: int, task: str, answer: str) -> dict:
    return {
        "name": "invoke_agent support",
        "type": "agent",
        "input": task,
        "output": answer,
        "start_time": f"2026-11-20T10:{minute:02d}:00Z",
        "end_time": f"2026-11-20T10:{minute:02d}:20Z",
        "context": {"session_id": "conv-live"},
        "children": [
            {
                "name": "lookup_order",
                "type": "tool",
                "input": {"order_id": "A1042"},
                "output": {"status": "placed"},
            }
        ],
    }


def test_the_periodic_task_judges_a_quiet_session_once(celery_worker, simulated_judge):
    # given a two-exchange conversation, quiet for an hour, and a rubric judging idle sessions
    project = Project.objects.create(slug="support", name="Support")
    ingest_span_tree(project, exchange(1, "Where is order A1042?", "It is placed."))
    ingest_span_tree(project, exchange(3, "Cancel it, please.", "Cancelled."))
    session = Session.objects.get()
    an_hour_ago = timezone.now() - timedelta(hours=1)
    Session.objects.filter(pk=session.pk).update(last_received_at=an_hour_ago)
    version = Rubric.objects.get(name="Tool-call decision accuracy").versions.get(number=1)
    config = judge_config_default()
    JudgeCalibration.objects.create(
        rubric_version=version, config=config, status=CalibrationStatus.APPROVED
    )
    rubric_online_update(
        rubric=version.rubric,
        judge_new_traces=False,
        sample_rate=1.0,
        judge_idle_sessions=True,
        session_idle_minutes=30,
        now=timezone.now() - timedelta(hours=2),
    )
    # when the periodic task runs on the worker
    sessions_judge_idle_task.delay()

    # then the session gets one verdict from both passes of an online session run
    def judged():
        return Verdict.objects.filter(session=session).exists()

    wait_for(judged, timeout=90, message=f"session not judged:\n{celery_worker.log_tail()}")
    run = JudgeRun.objects.get()
    assert (run.online, run.scope, run.trace_count) == (True, JudgeRunScope.SESSION, 1)
    passes = Judgment.objects.filter(run=run)
    assert passes.count() == 2 and set(passes.values_list("session_id", flat=True)) == {session.pk}
    wait_for(lambda: not passes.exclude(status=JudgmentStatus.DONE).exists(), timeout=30)
    assert simulated_judge.request_count == 2
    # and a second sweep finds nothing left to judge
    assert sessions_judge_idle() == (0, False)
    assert JudgeRun.objects.count() == 1
