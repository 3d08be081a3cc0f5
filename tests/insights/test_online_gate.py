"""Online judging of live traffic runs only approved judge versions."""

import pytest

from judges.calibration import judge_calibration_update
from judges.models import JudgeRun, Rubric
from judges.services import judge_config_default, trace_judge_online
from tests.factories import RubricVersionFactory, TraceFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def live_rubric():
    rubric = Rubric.objects.create(name="Live refund check", judge_new_traces=True, sample_rate=1.0)
    return RubricVersionFactory(rubric=rubric, number=1)


def test_a_calibrating_version_does_not_judge_live_traffic(live_rubric):
    assert trace_judge_online(TraceFactory()) == []
    assert not JudgeRun.objects.filter(online=True).exists()


def test_an_approved_version_judges_live_traffic(live_rubric):
    judge_calibration_update(live_rubric, judge_config_default(), [(1, 1), (0, 0)] * 15)
    [run] = trace_judge_online(TraceFactory())
    assert run.online and run.rubric_version == live_rubric


def test_a_flagged_version_stops_judging_live_traffic(live_rubric):
    config = judge_config_default()
    agreeing = [(1, 1), (0, 0)] * 15
    judge_calibration_update(live_rubric, config, agreeing)
    judge_calibration_update(live_rubric, config, agreeing + [(1, 0), (0, 1)] * 15)
    assert trace_judge_online(TraceFactory()) == []
