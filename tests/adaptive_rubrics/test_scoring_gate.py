"""A generated draft never scores; approval enables it; flips route with the criterion named;
the first verdicts of a new generated rubric reach the calibration queue."""

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils.html import escape

from core.errors import ApplicationError
from judges.adaptive_rubrics.generation import rubric_criteria_generate
from judges.models import CalibrationStatus, JudgeCalibration, Rubric, Verdict, VerdictStatus
from judges.services import judge_run_start, trace_judge_online
from reviews.models import ReviewItem, ReviewReason
from tests.judges import sample_traces

pytestmark = pytest.mark.django_db


def _live(version, config):
    Rubric.objects.filter(pk=version.rubric_id).update(judge_new_traces=True, sample_rate=1.0)
    JudgeCalibration.objects.create(
        rubric_version=version, config=config, status=CalibrationStatus.APPROVED
    )


def test_a_draft_cannot_score_live_traffic_or_a_run(
    simulator, cancellation_traces, curator, default_config
):
    # given a generated draft, set to judge new traces and even marked calibrated
    draft = rubric_criteria_generate(task_type="order_cancellation", user=curator)
    _live(draft, default_config)
    trace = sample_traces.support_cancel_ok()

    # when a new trace of its type completes, or someone starts a run with it
    runs = trace_judge_online(trace)

    # then nothing is judged by it
    assert runs == []
    with pytest.raises(ApplicationError) as error:
        judge_run_start(rubric_version=draft, config=default_config, traces=[trace])
    assert error.value.field == "rubric_version"


def test_approval_enables_live_scoring_of_its_task_type_only(
    approved_generated, default_config, capture
):
    _live(approved_generated, default_config)
    same_type = sample_traces.support_cancel_ok()
    other_type = sample_traces.coding_fix_ok()

    with capture(execute=False):
        judged = trace_judge_online(same_type)
        skipped = trace_judge_online(other_type)

    assert [run.rubric_version for run in judged] == [approved_generated]
    assert skipped == []


def test_a_flipping_criterion_routes_to_review_with_the_criterion_named(
    approved_generated, default_config, judge_all, simulator
):
    simulator.set(script=["ok", "flip"])
    trace = sample_traces.support_cancel_ok()

    run = judge_all(approved_generated, default_config, [trace])

    verdict = Verdict.objects.get(run=run, trace=trace)
    assert verdict.status == VerdictStatus.DISPUTED
    item = ReviewItem.objects.get(trace=trace, reason=ReviewReason.CRITERION_FLIP)
    first = approved_generated.criteria[0]["question"]
    assert f"criterion flipped: {first}" in item.detail
    assert approved_generated.criteria[1]["question"] not in item.detail


def test_the_first_verdicts_of_a_new_generated_rubric_go_to_people(
    approved_generated, default_config, judge_all, cancellation_traces
):
    run = judge_all(approved_generated, default_config, cancellation_traces)

    scored = Verdict.objects.filter(run=run, score__isnull=False).count()
    sampled = ReviewItem.objects.filter(
        reason=ReviewReason.CALIBRATION, rubric_version=approved_generated
    )
    assert scored == len(cancellation_traces) <= settings.CALIBRATION_FIRST_SAMPLED
    assert sampled.count() == scored
    assert set(sampled.values_list("queue__name", flat=True)) == {"Calibration"}


def test_the_review_page_highlights_the_criterion_that_flipped(
    approved_generated, default_config, judge_all, simulator, client, annotator
):
    # given a trace whose second pass flipped the first criterion
    simulator.set(script=["ok", "flip"])
    trace = sample_traces.support_cancel_ok()
    judge_all(approved_generated, default_config, [trace])
    item = ReviewItem.objects.get(trace=trace, reason=ReviewReason.CRITERION_FLIP)
    client.force_login(annotator)

    # when a reviewer claims and opens it
    client.post(reverse("reviews:queue_claim", args=[item.queue_id]))
    body = client.get(reverse("reviews:item_detail", args=[item.pk])).content.decode()

    # then that criterion, and only it, is marked as the one the passes disagree on
    marker = '<span class="badge warn">flipped between passes</span>'
    assert body.count(marker) == 1
    question = escape(approved_generated.criteria[0]["question"])
    assert f'<div class="criterion flipped"><span>{question} {marker}' in body
