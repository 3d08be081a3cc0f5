"""A rubric judges a whole session through the double-pass path: one verdict per session."""

import pytest

from judges.execution import judgment_execute
from judges.models import JudgeRunScope, Judgment, Verdict, VerdictStatus
from judges.services import judge_run_start, verdicts_mark_stale
from judges.session_prompts import session_prompt_render
from reviews.models import ReviewItem, ReviewReason
from reviews.services import review_item_enqueue
from tests.factories import TraceFactory

pytestmark = pytest.mark.django_db


def _start(version, config, session, capture):
    with capture(execute=False):
        return judge_run_start(
            rubric_version=version, config=config, traces=None, sessions=[session.pk]
        )


def test_the_prompt_holds_every_trace_of_the_session_in_order(conversation, tool_rubric):
    first, second = conversation.traces.order_by("started_at")

    prompt = session_prompt_render(tool_rubric, conversation)

    assert first.task in prompt.user and second.task in prompt.user
    assert prompt.user.index(first.task) < prompt.user.index(second.task)
    # The agent-written answer is the conversation's last one, fenced like any trace text.
    assert second.final_answer in prompt.user
    assert "cancel_order" in prompt.span_names


def test_both_passes_judge_the_session_and_it_gets_one_verdict(
    conversation, simulator, tool_rubric, default_config, capture
):
    run = _start(tool_rubric, default_config, conversation, capture)
    passes = list(run.judgments.order_by("pass_index"))
    last = conversation.traces.order_by("-started_at").first()

    assert run.scope == JudgeRunScope.SESSION and run.trace_count == 1
    assert [(j.session_id, j.trace_id) for j in passes] == [(conversation.pk, last.pk)] * 2
    assert [judgment_execute(j.pk).state for j in passes] == ["done", "done"]

    verdict = Verdict.objects.get(run=run)
    assert verdict.session_id == conversation.pk
    # The second trace answers confidently after a failed tool: the session fails.
    assert (verdict.status, verdict.score) == (VerdictStatus.AGREED, 0.0)
    cited = Judgment.objects.filter(run=run).first().cited_spans
    assert any(c["cited"] == "cancel_order" and c["span_id"] for c in cited)


def test_passes_that_disagree_send_the_session_to_review(
    conversation, simulator, tool_rubric, default_config, capture
):
    simulator.set(flip_rate=1.0)
    run = _start(tool_rubric, default_config, conversation, capture)

    for judgment in run.judgments.all():
        judgment_execute(judgment.pk)

    verdict = Verdict.objects.get(run=run)
    assert verdict.status == VerdictStatus.DISPUTED
    item = ReviewItem.objects.get(verdict=verdict, reason=ReviewReason.PASSES_DISAGREE)
    assert item.session_id == conversation.pk
    assert item.trace_id == verdict.trace_id


def test_a_session_item_and_a_trace_item_on_the_same_trace_are_kept_apart(
    conversation, tool_rubric
):
    last = conversation.traces.order_by("-started_at").first()
    reason = ReviewReason.PASSES_DISAGREE

    on_trace = review_item_enqueue(trace=last, reason=reason, rubric_version=tool_rubric)
    on_session = review_item_enqueue(
        trace=last, reason=reason, rubric_version=tool_rubric, session_id=conversation.pk
    )
    again = review_item_enqueue(
        trace=last, reason=reason, rubric_version=tool_rubric, session_id=conversation.pk
    )

    assert on_trace.pk != on_session.pk and again.pk == on_session.pk
    assert on_trace.session_id is None


def test_a_new_trace_in_the_session_makes_its_verdict_stale(
    conversation, simulator, tool_rubric, default_config, capture
):
    run = _start(tool_rubric, default_config, conversation, capture)
    for judgment in run.judgments.all():
        judgment_execute(judgment.pk)
    newcomer = TraceFactory(project=conversation.project, session=conversation)

    verdicts_mark_stale([newcomer.pk])

    assert Verdict.objects.get(run=run).stale is True


def test_an_empty_selection_of_sessions_is_refused(tool_rubric, default_config, capture):
    from core.errors import ApplicationError

    with pytest.raises(ApplicationError) as refused:
        _start(tool_rubric, default_config, type("S", (), {"pk": 999_999})(), capture)
    assert refused.value.field == "sessions"


def _run_posted(client, rubric_version, **ids):
    body = {"rubric_version": rubric_version.pk, **ids}
    return client.post("/api/judge-runs/", body, format="json")


class TestJudgeRunApi:
    def test_session_ids_start_a_session_run(
        self, conversation, curator, api_client_for, tool_rubric
    ):
        response = _run_posted(api_client_for(curator), tool_rubric, session_ids=[conversation.pk])

        assert response.status_code == 201, response.content
        body = response.json()
        assert body["scope"] == "session" and body["trace_count"] == 1
        assert Judgment.objects.filter(run_id=body["id"], session=conversation).count() == 2

    def test_an_unknown_session_is_named(self, curator, api_client_for, tool_rubric):
        response = _run_posted(api_client_for(curator), tool_rubric, session_ids=[424242])

        assert response.status_code == 400
        assert "session_ids" in response.json()["error"]["fields"]

    def test_sessions_and_traces_together_are_refused(
        self, conversation, curator, api_client_for, tool_rubric
    ):
        trace = conversation.traces.first()
        response = _run_posted(
            api_client_for(curator),
            tool_rubric,
            session_ids=[conversation.pk],
            trace_ids=[trace.pk],
        )

        assert response.status_code == 400
        assert "trace_ids" in response.json()["error"]["fields"]

    def test_annotators_cannot_start_one(
        self, conversation, annotator, api_client_for, tool_rubric
    ):
        response = _run_posted(
            api_client_for(annotator), tool_rubric, session_ids=[conversation.pk]
        )

        assert response.status_code == 403


def test_the_session_judge_page_starts_a_run(
    client, curator, conversation, tool_rubric, default_config, capture
):
    client.force_login(curator)
    page = client.get(f"/judges/sessions/{conversation.pk}/judge/")
    assert page.status_code == 200
    assert b"2 traces" in page.content

    with capture(execute=False):
        response = client.post(
            f"/judges/sessions/{conversation.pk}/judge/",
            {"rubric_version": tool_rubric.pk, "config": default_config.pk},
        )

    run = Judgment.objects.get(session=conversation, pass_index=0).run
    assert response.status_code == 302 and response["Location"] == f"/judges/runs/{run.pk}/"
    assert run.scope == JudgeRunScope.SESSION


def test_annotators_do_not_get_the_session_judge_page(client, annotator, conversation):
    client.force_login(annotator)

    assert client.get(f"/judges/sessions/{conversation.pk}/judge/").status_code == 403
