"""Calibration pages: curator-only, matrix and disagreeing cases one click away."""

import pytest
from django.urls import reverse
from django.utils import timezone

from judges.calibration import judge_calibration_get, judge_calibration_update
from reviews.models import Queue, ReviewItem
from tests.factories import JudgeRunFactory, TraceFactory, VerdictFactory

pytestmark = pytest.mark.django_db


def calibration_label(run, judge, human, task="Refund order A1042"):
    verdict = VerdictFactory(run=run, trace=TraceFactory(task=task), status="agreed", score=judge)
    queue, _ = Queue.objects.get_or_create(name="Calibration", defaults={"blind": True})
    return ReviewItem.objects.create(
        queue=queue,
        trace=verdict.trace,
        verdict=verdict,
        rubric_version=run.rubric_version,
        reason="calibration",
        status="resolved",
        resolved_score=human,
        resolved_at=timezone.now(),
    )


def test_annotators_cannot_open_the_calibration_pages(client, annotator):
    run = JudgeRunFactory()
    calibration = judge_calibration_get(run.rubric_version, run.config)
    client.force_login(annotator)
    assert client.get(reverse("insights:calibration_list")).status_code == 403
    url = reverse("insights:calibration_detail", args=[calibration.pk])
    assert client.get(url).status_code == 403
    assert client.get(reverse("insights:held_out_report")).status_code == 403


def test_list_shows_status_and_why_a_version_was_flagged(client, curator):
    run = JudgeRunFactory()
    agreeing = [(1.0, 1.0), (0.0, 0.0)] * 15
    judge_calibration_update(run.rubric_version, run.config, agreeing)
    judge_calibration_update(
        run.rubric_version, run.config, agreeing + [(1.0, 0.0), (0.0, 1.0)] * 15
    )
    client.force_login(curator)
    html = client.get(reverse("insights:calibration_list")).content.decode()
    assert "flagged" in html
    assert "fell to" in html


def test_detail_shows_the_matrix_and_links_each_disagreement(client, curator):
    run = JudgeRunFactory()
    calibration_label(run, 1.0, 1.0)
    calibration_label(run, 0.0, 0.0)
    wrong = calibration_label(run, 1.0, 0.0, task="<script>alert('x')</script> cancel booking")
    calibration = judge_calibration_get(run.rubric_version, run.config)
    client.force_login(curator)
    response = client.get(reverse("insights:calibration_detail", args=[calibration.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    matrix = response.context["measure"].matrix
    assert matrix == [[1, 0], [1, 1]]
    assert [item.pk for item in response.context["disagreements"]] == [wrong.pk]
    assert reverse("reviews:item_detail", args=[wrong.pk]) in html
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert" in html


def test_curator_retires_a_version_and_sends_it_back_to_calibrating(client, curator):
    run = JudgeRunFactory()
    judge_calibration_update(run.rubric_version, run.config, [(1.0, 1.0), (0.0, 0.0)] * 15)
    calibration = judge_calibration_get(run.rubric_version, run.config)
    url = reverse("insights:calibration_status_change", args=[calibration.pk])
    client.force_login(curator)
    client.post(url, {"action": "retire"})
    calibration.refresh_from_db()
    assert calibration.status == "retired"
    client.post(url, {"action": "recalibrate"})
    calibration.refresh_from_db()
    assert calibration.status == "calibrating"


def test_annotator_cannot_change_a_calibration(client, annotator):
    run = JudgeRunFactory()
    calibration = judge_calibration_get(run.rubric_version, run.config)
    client.force_login(annotator)
    url = reverse("insights:calibration_status_change", args=[calibration.pk])
    assert client.post(url, {"action": "retire"}).status_code == 403
    calibration.refresh_from_db()
    assert calibration.status == "calibrating"
