"""Online judging of sessions: a rubric judges each session whole once it has gone quiet, once
per activity, through the same two passes and review routing as a session judged by hand."""

from datetime import timedelta

import pytest
from django.utils import timezone

from judges.execution import judgment_execute
from judges.models import JudgeRun, JudgeRunScope, Judgment, Verdict, VerdictStatus
from judges.rubrics import rubric_online_update
from judges.services import judge_run_start
from judges.session_online import sessions_judge_idle
from reviews.models import ReviewItem, ReviewReason
from tests.factories import ProjectFactory, TraceFactory
from traces.ingest.services import ingest_span_tree
from traces.models import Session

pytestmark = pytest.mark.django_db

IDLE = 30


@pytest.fixture
def online(tool_rubric, settings):
    """The tool-call rubric judging idle sessions at every sample, from an hour ago."""
    settings.JUDGE_ONLINE_BEFORE_CALIBRATION = True
    settings.SESSION_IDLE_MINUTES = IDLE
    rubric = tool_rubric.rubric
    rubric_online_update(
        rubric=rubric,
        judge_new_traces=False,
        sample_rate=1.0,
        judge_idle_sessions=True,
        session_idle_minutes=None,
        now=timezone.now() - timedelta(hours=1),
    )
    return rubric


def quiet_since(session: Session, minutes: float) -> None:
    Session.objects.filter(pk=session.pk).update(
        last_received_at=timezone.now() - timedelta(minutes=minutes)
    )


def session_runs(session: Session):
    return JudgeRun.objects.filter(online=True, judgments__session=session).distinct()


def test_a_quiet_session_is_judged_whole_once(online, conversation, tool_rubric, capture):
    # given a conversation whose last trace came 31 minutes ago
    quiet_since(conversation, IDLE + 1)
    # when the sweep runs, twice
    with capture(execute=False):
        first = sessions_judge_idle()
        second = sessions_judge_idle()
    # then one online session run holds both passes over the whole conversation
    assert (first, second) == ((1, False), (0, False))
    run = session_runs(conversation).get()
    assert (run.scope, run.rubric_version, run.trace_count) == (
        JudgeRunScope.SESSION,
        tool_rubric,
        1,
    )
    assert run.judgments.filter(session=conversation).count() == 2


def test_a_session_still_active_waits(online, conversation, capture):
    quiet_since(conversation, IDLE - 5)
    with capture(execute=False):
        assert sessions_judge_idle() == (0, False)
        # and is judged once its idle time has passed
        assert sessions_judge_idle(now=timezone.now() + timedelta(minutes=6)) == (1, False)


def test_the_rubric_idle_time_wins_and_the_setting_is_read_at_call_time(
    online, conversation, settings, capture
):
    quiet_since(conversation, 10)
    settings.SESSION_IDLE_MINUTES = 5
    with capture(execute=False):
        online.session_idle_minutes = 20
        online.save(update_fields=["session_idle_minutes"])
        assert sessions_judge_idle() == (0, False)
        online.session_idle_minutes = None
        online.save(update_fields=["session_idle_minutes"])
        assert sessions_judge_idle() == (1, False)


def test_a_new_trace_after_judging_has_the_session_judged_again_once_quiet(
    online, conversation, simulator, capture
):
    # given the session judged online
    quiet_since(conversation, IDLE + 1)
    with capture(execute=False):
        sessions_judge_idle()
    for judgment in Judgment.objects.filter(session=conversation):
        judgment_execute(judgment.pk)
    first_verdict = Verdict.objects.get(session=conversation)
    # when the conversation goes on: a new trace arrives under its id
    ingest_span_tree(
        conversation.project,
        {
            "name": "invoke_agent",
            "input": "And the refund?",
            "output": "Refunded.",
            "context": {"session_id": conversation.external_id},
        },
    )
    conversation.refresh_from_db()
    assert conversation.trace_count == 3
    with capture(execute=False):
        # then nothing happens while it is active
        assert sessions_judge_idle() == (0, False)
        # and once quiet again it is judged a second time, in a run of its own
        later = timezone.now() + timedelta(minutes=IDLE + 1)
        assert sessions_judge_idle(now=later) == (1, False)
        assert sessions_judge_idle(now=later) == (0, False)
    assert session_runs(conversation).count() == 2
    first_verdict.refresh_from_db()
    assert first_verdict.stale is True


def test_a_session_judged_by_hand_since_its_last_trace_is_not_judged_again(
    online, conversation, tool_rubric, default_config, capture
):
    quiet_since(conversation, IDLE + 1)
    with capture(execute=False):
        judge_run_start(
            rubric_version=tool_rubric,
            config=default_config,
            traces=None,
            sessions=[conversation.pk],
        )
        assert sessions_judge_idle() == (0, False)
    assert not session_runs(conversation).exists()


def test_disputed_passes_send_the_session_to_review(online, conversation, simulator, capture):
    simulator.set(flip_rate=1.0)
    quiet_since(conversation, IDLE + 1)
    with capture(execute=False):
        sessions_judge_idle()
    run = session_runs(conversation).get()
    for judgment in run.judgments.all():
        judgment_execute(judgment.pk)

    verdict = Verdict.objects.get(run=run)
    assert (verdict.session_id, verdict.status) == (conversation.pk, VerdictStatus.DISPUTED)
    item = ReviewItem.objects.get(verdict=verdict, reason=ReviewReason.PASSES_DISAGREE)
    assert item.session_id == conversation.pk
    run.refresh_from_db()
    assert run.status == "done"


def test_sessions_quiet_before_switching_on_are_not_judged(tool_rubric, conversation, capture):
    quiet_since(conversation, IDLE + 1)
    rubric_online_update(
        rubric=tool_rubric.rubric,
        judge_new_traces=False,
        sample_rate=1.0,
        judge_idle_sessions=True,
        session_idle_minutes=IDLE,
    )
    with capture(execute=False):
        assert sessions_judge_idle() == (0, False)


def test_a_project_rubric_judges_its_project_only_and_batches_are_bounded(
    online, conversation, capture
):
    other = Session.objects.create(project=ProjectFactory(slug="other"), external_id="o-1")
    TraceFactory(project=other.project, session=other)
    third = Session.objects.create(project=conversation.project, external_id="conv-3")
    TraceFactory(project=conversation.project, session=third)
    for session in (conversation, other, third):
        quiet_since(session, IDLE + 1)
    online.project = conversation.project
    online.save(update_fields=["project"])
    with capture(execute=False):
        # one session a batch: the first sweep says more wait
        assert sessions_judge_idle(limit=1) == (1, True)
        assert sessions_judge_idle(limit=1) == (1, True)
        assert sessions_judge_idle(limit=1) == (0, False)
    judged = set(Judgment.objects.values_list("session_id", flat=True))
    assert judged == {conversation.pk, third.pk}


def test_an_uncalibrated_version_does_not_judge_live_sessions(
    online, conversation, settings, capture
):
    settings.JUDGE_ONLINE_BEFORE_CALIBRATION = False
    quiet_since(conversation, IDLE + 1)
    with capture(execute=False):
        assert sessions_judge_idle() == (0, False)


class TestSettings:
    def test_curators_switch_it_on_from_the_rubric_page(self, client, curator, tool_rubric):
        client.force_login(curator)
        rubric = tool_rubric.rubric

        response = client.post(
            f"/judges/rubrics/{rubric.pk}/online/",
            {"judge_idle_sessions": "on", "session_idle_minutes": "45", "sample_rate": "0.5"},
        )

        assert response.status_code == 302
        rubric.refresh_from_db()
        assert (rubric.judge_idle_sessions, rubric.session_idle_minutes) == (True, 45)
        assert rubric.sessions_swept_through is not None
        html = client.get(f"/judges/rubrics/{rubric.pk}/").content.decode()
        assert 'name="judge_idle_sessions"' in html and 'value="45"' in html

    def test_annotators_read_it_on_the_rubric_page(self, client, annotator, online):
        client.force_login(annotator)

        html = client.get(f"/judges/rubrics/{online.pk}/").content.decode()

        assert f"Idle sessions: on, after {IDLE} quiet minutes" in html

    def test_the_api_reads_and_changes_it(self, curator, api_client_for, tool_rubric):
        url = f"/api/rubrics/{tool_rubric.rubric_id}/online/"
        api = api_client_for(curator)

        changed = api.patch(url, {"judge_idle_sessions": True, "session_idle_minutes": 10})
        read = api.get(url).json()

        assert changed.status_code == 200, changed.content
        assert read["judge_idle_sessions"] is True
        assert (read["session_idle_minutes"], read["effective_idle_minutes"]) == (10, 10)

    def test_the_api_names_the_field_it_refuses(self, curator, api_client_for, tool_rubric):
        rubric = tool_rubric.rubric
        rubric.task_type = "order_cancellation"
        rubric.save(update_fields=["task_type"])
        api = api_client_for(curator)
        url = f"/api/rubrics/{rubric.pk}/online/"

        typed = api.patch(url, {"judge_idle_sessions": True}, format="json")
        too_short = api.patch(url, {"session_idle_minutes": 0}, format="json")

        assert typed.status_code == 400
        assert "judge_idle_sessions" in str(typed.json()["error"])
        assert too_short.status_code == 400
        assert "session_idle_minutes" in too_short.json()["error"]["fields"]

    def test_annotators_cannot_change_it(self, annotator, api_client_for, tool_rubric):
        url = f"/api/rubrics/{tool_rubric.rubric_id}/online/"
        response = api_client_for(annotator).patch(url, {"judge_idle_sessions": True})
        assert response.status_code == 403

    def test_the_schema_documents_the_route(self, curator, api_client_for):
        schema = api_client_for(curator).get("/api/schema/?format=json").json()
        operations = schema["paths"]["/api/rubrics/{rubric_id}/online/"]
        assert {"get", "patch"} <= set(operations)
