"""The calibration gate end to end: a real worker, the simulated judge, blind review, approval."""

import pytest
from django.db import transaction

from judges.calibration import judge_calibration_get, judge_version_approved_for_online
from judges.models import CalibrationStatus, Rubric
from judges.services import judge_config_default, judge_run_start, trace_judge_online
from reviews.calibration_receivers import CALIBRATION_QUEUE_NAME
from reviews.claims import review_item_claim_next
from reviews.models import Queue, ReviewItem, ReviewReason
from reviews.services import review_item_resolve
from tests.integration.conftest import wait_for
from tests.judges import sample_traces

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
LABELS = 30


@pytest.mark.usefixtures("celery_worker")
def test_judge_version_is_blocked_until_blind_labels_agree_then_judges_live_traffic(annotator):
    rubric = Rubric.objects.get(name="Tool-call decision accuracy")
    rubric.judge_new_traces, rubric.sample_rate = True, 1.0
    rubric.save()
    version, config = rubric.versions.get(number=1), judge_config_default()
    # given a calibrating version: live traffic is not judged by it
    with transaction.atomic():
        assert trace_judge_online(sample_traces.support_cancel_ok()) == []
    assert not judge_version_approved_for_online(version, config)

    # when a judge run scores 30 traces through the worker and the simulated judge
    traces = sample_traces.traces_mixed(LABELS)
    run = judge_run_start(rubric_version=version, config=config, traces=traces)
    wait_for(
        lambda: ReviewItem.objects.filter(reason=ReviewReason.CALIBRATION).count() == LABELS,
        timeout=240,
        message="calibration samples did not reach the queue",
    )
    queue = Queue.objects.get(name=CALIBRATION_QUEUE_NAME)
    assert queue.blind
    assert ReviewItem.objects.filter(queue=queue, verdict__run=run).count() == LABELS

    # and a person labels each blind sample the way the judge did
    for _ in range(LABELS):
        item = review_item_claim_next(user=annotator, queue=queue)
        annotation = review_item_resolve(item=item, user=annotator, score=item.verdict.score)
        assert annotation.blind

    # then the version is approved, and live traffic is judged by it
    calibration = judge_calibration_get(version, config)
    assert calibration.status == CalibrationStatus.APPROVED
    assert calibration.items == LABELS and calibration.kappa == pytest.approx(1.0)
    with transaction.atomic():
        [online_run] = trace_judge_online(sample_traces.travel_book_ok())
    assert online_run.online and online_run.rubric_version == version
