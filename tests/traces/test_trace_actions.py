"""The trace page's actions (judge it, flag it) and what it says about the judge that scored it."""

import pytest

from judges.calibration import judge_calibration_update
from tests.factories import JudgmentFactory, TraceFactory, VerdictFactory

pytestmark = pytest.mark.django_db


def _page(client, user, trace) -> str:
    client.force_login(user)
    return client.get(f"/traces/{trace.pk}/").content.decode()


def test_a_curator_can_judge_the_trace_by_its_hex_id_and_flag_it(client, curator):
    trace = TraceFactory(external_id="4bf92f3577b34da6a3ce929d0e0e4736")

    body = _page(client, curator, trace)

    assert "/judges/runs/new/?trace_ids=4bf92f3577b34da6a3ce929d0e0e4736" in body
    assert f'action="/reviews/traces/{trace.pk}/flag/"' in body and "Flag for review" in body


def test_an_annotator_flags_but_does_not_start_runs(client, annotator):
    body = _page(client, annotator, TraceFactory())

    assert "Flag for review" in body and "Judge this trace" not in body


def test_flagging_from_the_trace_page_opens_a_review_item_and_comes_back(client, annotator):
    trace = TraceFactory()
    client.force_login(annotator)

    response = client.post(f"/reviews/traces/{trace.pk}/flag/", {"note": "answer looks wrong"})

    assert response["Location"] == f"/traces/{trace.pk}/"
    item = trace.review_items.get()
    assert item.reason == "flagged"


def test_the_page_names_the_judge_version_and_says_it_is_not_yet_calibrated(client, annotator):
    judgment = JudgmentFactory(score=7)
    VerdictFactory(
        trace=judgment.trace,
        rubric_version=judgment.rubric_version,
        config=judgment.config,
        run=judgment.run,
    )

    body = _page(client, annotator, judgment.trace)

    version = judgment.rubric_version
    assert f"Judged by <strong>{version.rubric.name} v{version.number}</strong>" in body
    assert "not yet calibrated" in body


def test_a_calibrated_judge_version_is_said_to_be_so(client, annotator):
    judgment = JudgmentFactory(score=1)
    judge_calibration_update(judgment.rubric_version, judgment.config, [(1, 1), (0, 0)] * 15)

    body = _page(client, annotator, judgment.trace)

    assert "calibrated against people" in body and "not yet calibrated" not in body


def test_the_trace_list_hands_its_filter_to_the_judge_run_form(client, curator):
    TraceFactory(agent_name="support")
    client.force_login(curator)

    body = client.get("/traces/?agent_name=support").content.decode()

    assert "/judges/runs/new/?trace_list_query=agent_name%3Dsupport" in body
