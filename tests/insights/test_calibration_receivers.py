"""Calibration end to end through the hand-offs: sampled verdicts, blind review, approval."""

import pytest

from judges.calibration import judge_calibration_get, judge_version_approved_for_online
from judges.models import CalibrationStatus
from judges.signals import verdict_written
from reviews.calibration_receivers import CALIBRATION_QUEUE_NAME
from reviews.claims import review_item_claim_next
from reviews.models import Queue, ReviewItem, ReviewReason
from reviews.services import review_item_resolve
from tests.factories import GoldenExampleFactory, JudgeRunFactory, TraceFactory, VerdictFactory

pytestmark = pytest.mark.django_db


def verdict_written_for(run, score):
    verdict = VerdictFactory(run=run, trace=TraceFactory(), status="agreed", score=score)
    verdict_written.send(sender=type(verdict), verdict=verdict)
    return verdict


def test_calibrating_verdict_goes_to_the_blind_calibration_queue():
    run = JudgeRunFactory()
    verdict = verdict_written_for(run, 1.0)
    item = ReviewItem.objects.get(trace=verdict.trace, reason=ReviewReason.CALIBRATION)
    assert item.queue.name == CALIBRATION_QUEUE_NAME
    assert item.queue.blind
    assert item.verdict == verdict


def test_held_out_golden_trace_is_never_sampled_for_calibration():
    run = JudgeRunFactory()
    trace = TraceFactory()
    GoldenExampleFactory(source_trace=trace, held_out=True)
    verdict = VerdictFactory(run=run, trace=trace, status="agreed", score=1.0)
    verdict_written.send(sender=type(verdict), verdict=verdict)
    assert not ReviewItem.objects.filter(trace=trace).exists()
    assert judge_calibration_get(run.rubric_version, run.config).verdicts_seen == 0


def test_agreeing_blind_labels_approve_the_judge_version(annotator):
    run = JudgeRunFactory()
    for i in range(30):
        verdict_written_for(run, float(i % 2))
    queue = Queue.objects.get(name=CALIBRATION_QUEUE_NAME)
    assert not judge_version_approved_for_online(run.rubric_version, run.config)
    # when a person labels all 30 the way the judge did
    for _ in range(30):
        item = review_item_claim_next(user=annotator, queue=queue)
        annotation = review_item_resolve(item=item, user=annotator, score=item.verdict.score)
        assert annotation.blind
    # then the version is approved and no further verdict is sampled
    calibration = judge_calibration_get(run.rubric_version, run.config)
    assert calibration.status == CalibrationStatus.APPROVED
    assert calibration.items == 30 and calibration.kappa == pytest.approx(1.0)
    assert judge_version_approved_for_online(run.rubric_version, run.config)
    verdict = verdict_written_for(run, 1.0)
    assert not ReviewItem.objects.filter(trace=verdict.trace).exists()


def test_disagreeing_labels_keep_the_version_out_of_live_traffic(annotator):
    run = JudgeRunFactory()
    for i in range(30):
        verdict_written_for(run, float(i % 2))
    queue = Queue.objects.get(name=CALIBRATION_QUEUE_NAME)
    for _ in range(30):
        item = review_item_claim_next(user=annotator, queue=queue)
        # the person gives the opposite label on every other item
        flip = item.pk % 2 == 0
        score = 1.0 - item.verdict.score if flip else item.verdict.score
        review_item_resolve(item=item, user=annotator, score=score)
    calibration = judge_calibration_get(run.rubric_version, run.config)
    assert calibration.items == 30
    assert calibration.kappa < 0.6
    assert calibration.status == CalibrationStatus.CALIBRATING
    assert not judge_version_approved_for_online(run.rubric_version, run.config)
