"""Task-adaptive rubric pages: task types, criteria with statistics, the editor, approval."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import escape

from judges.adaptive_rubrics.generation import (
    criteria_version_create,
    rubric_criteria_generate,
    rubric_version_approve,
)
from judges.adaptive_rubrics.models import TaskTypeAssignment, TaskTypeRule
from judges.adaptive_rubrics.task_types import trace_task_type_correct
from judges.models import JudgeRun, RubricVersionStatus
from tests.judges import sample_traces

pytestmark = pytest.mark.django_db


def _criteria_url(version):
    url = reverse("judges:adaptive_criteria", args=[version.rubric_id])
    return f"{url}?version={version.number}"


def _edit_data(version, rows):
    data = {
        "version": version.number,
        "form-TOTAL_FORMS": len(rows),
        "form-INITIAL_FORMS": len(version.criteria),
        "form-MIN_NUM_FORMS": 0,
        "form-MAX_NUM_FORMS": 1000,
    }
    for index, row in enumerate(rows):
        for key, value in row.items():
            data[f"form-{index}-{key}"] = value
    return data


def test_the_rubric_page_shows_criteria_statistics_and_flags(
    client, annotator, curator, approved_generated, default_config, judge_all, cancellation_traces
):
    # given a version with a specific and a generic criterion, judged on six traces
    criteria = [approved_generated.criteria[1], {"question": "Was the agent polite?"}]
    version = criteria_version_create(rubric=approved_generated.rubric, criteria=criteria)
    version = rubric_version_approve(version=version, user=curator)
    judge_all(version, default_config, cancellation_traces)
    client.force_login(annotator)

    # when an annotator opens the rubric's criteria page
    response = client.get(_criteria_url(version))

    # then each criterion shows its yes share, flips and overturns; the generic one is flagged
    body = response.content.decode()
    assert response.status_code == 200
    assert escape(criteria[0]["question"]) in body and "Was the agent polite?" in body
    assert body.count("0 of 6") == 2  # no flips on either criterion
    assert "50%" in body and "100%" in body
    assert body.count('class="badge bad">vague') == 1 and "Rewrite it" in body
    assert "Edit criteria" not in body  # annotators read, curators edit
    # and the rubric page itself shows the same statistics for that version
    rubric_page = client.get(
        f"/judges/rubrics/{version.rubric_id}/", {"version": version.number}
    ).content.decode()
    assert rubric_page.count("0 of 6") == 2
    assert rubric_page.count('class="badge bad">vague') == 1


def test_a_curator_reorders_weights_deletes_and_adds_into_a_new_draft(
    client, curator, simulator, cancellation_traces
):
    draft = rubric_criteria_generate(task_type="order_cancellation", user=curator)
    first, second = draft.criteria[0], draft.criteria[1]
    rows = [
        {"question": first["question"], "evidence": "", "weight": 1, "ORDER": 2},
        {"question": second["question"], "evidence": "x", "weight": 4, "ORDER": 1},
    ]
    rows += [
        {"question": c["question"], "evidence": "", "weight": 1, "ORDER": i, "DELETE": "on"}
        for i, c in enumerate(draft.criteria[2:], start=3)
    ]
    rows.append({"question": "Was the refund amount quoted from the order?", "weight": 2})
    client.force_login(curator)

    response = client.post(_criteria_url(draft), _edit_data(draft, rows))

    saved = draft.rubric.versions.get(number=draft.number + 1)
    assert response.status_code == 302 and response["Location"].endswith(f"version={saved.number}")
    assert saved.status == RubricVersionStatus.DRAFT
    assert [(c["question"], c["weight"]) for c in saved.criteria] == [
        (second["question"], 4.0),
        (first["question"], 1.0),
        ("Was the refund amount quoted from the order?", 2.0),
    ]


def test_a_curator_approves_a_draft_and_an_annotator_cannot(
    client, curator, annotator, simulator, cancellation_traces
):
    draft = rubric_criteria_generate(task_type="order_cancellation", user=curator)
    url = reverse("judges:adaptive_approve", args=[draft.rubric_id, draft.number])

    client.force_login(annotator)
    assert client.post(url).status_code == 403
    client.force_login(curator)
    client.post(url)

    draft.refresh_from_db()
    assert draft.status == RubricVersionStatus.APPROVED
    # its first verdicts are on their way to the calibration queue
    run = JudgeRun.objects.get(rubric_version=draft)
    assert run.trace_count == len(cancellation_traces)
    assert run.judgments.count() == 2 * len(cancellation_traces)


def test_the_task_type_page_generates_adds_rules_and_keeps_corrections(
    client, curator, simulator, cancellation_traces
):
    client.force_login(curator)
    trace = sample_traces.coding_fix_ok()

    generated = client.post(
        reverse("judges:adaptive_generate"), {"task_type": "order_cancellation"}
    )
    client.post(
        reverse("judges:adaptive_rule_add"),
        {
            "task_type": "refunds",
            "task_pattern": "refund",
            "tools": "cancel_order, ",
            "priority": 1,
        },
    )
    client.post(reverse("judges:adaptive_correct"), {"trace": trace.pk, "task_type": "<b>x</b>"})
    page = client.get(reverse("judges:adaptive_task_types")).content.decode()

    assert generated.status_code == 302 and "/criteria/" in generated["Location"]
    assert TaskTypeRule.objects.get().tools == ["cancel_order"]
    assert TaskTypeAssignment.objects.get(trace=trace).previous_task_type == "bug_fix"
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
    assert "order_cancellation" in page and "refunds" in page


def test_pages_need_login_and_outsiders_are_refused(client, outsider, approved_generated):
    urls = [reverse("judges:adaptive_task_types"), _criteria_url(approved_generated)]

    assert all(client.get(url).status_code == 302 for url in urls)
    client.force_login(outsider)
    assert all(client.get(url).status_code == 403 for url in urls)


def test_the_task_type_page_takes_the_same_queries_however_many_corrections(
    client, curator, django_assert_max_num_queries
):
    client.force_login(curator)
    for trace in [sample_traces.support_cancel_ok() for _ in range(2)]:
        trace_task_type_correct(trace=trace, task_type="refunds", user=curator)
    url = reverse("judges:adaptive_task_types")
    with CaptureQueriesContext(connection) as few:
        client.get(url)
    for trace in [sample_traces.travel_book_ok() for _ in range(6)]:
        trace_task_type_correct(trace=trace, task_type="trips", user=curator)

    with django_assert_max_num_queries(len(few.captured_queries)):
        page = client.get(url)

    assert page.content.decode().count("trips") >= 6
