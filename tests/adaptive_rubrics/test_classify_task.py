"""trace_task_type_classify_task: an untyped trace is classified, then judged by its rubric."""

import pytest

from judges.models import CalibrationStatus, JudgeCalibration, Judgment, Rubric
from judges.services import trace_judge_online
from judges.tasks import trace_task_type_classify_task
from tests.judges import sample_traces

pytestmark = pytest.mark.django_db


def test_an_untyped_trace_is_classified_later_then_judged_by_its_types_rubric(
    approved_generated, default_config, capture, simulator
):
    # given a live, calibrated rubric for order cancellations and an untyped cancellation trace
    Rubric.objects.filter(pk=approved_generated.rubric_id).update(
        judge_new_traces=True, sample_rate=1.0
    )
    JudgeCalibration.objects.create(
        rubric_version=approved_generated, config=default_config, status=CalibrationStatus.APPROVED
    )
    trace = sample_traces.support_cancel_ok()
    trace.task_type = ""
    trace.save()

    # when it completes: no rule types it, so classification is left to a task
    with capture(execute=False) as callbacks:
        runs = trace_judge_online(trace)
    assert runs == [] and len(callbacks) == 1
    with capture(execute=False):
        task_type = trace_task_type_classify_task(trace.pk)

    # then the judge typed it and the type's rubric judges it
    assert task_type == "order_cancellation"
    assert Judgment.objects.filter(trace=trace, rubric_version=approved_generated).count() == 2


def test_a_missing_trace_is_a_no_op():
    assert trace_task_type_classify_task(999_999) == ""
