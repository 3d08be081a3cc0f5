"""The calibration gate of judge versions: approval, drift flags, sampling, retirement."""

import pytest
from sklearn.metrics import cohen_kappa_score

from judges.calibration import (
    calibration_sample_claim,
    judge_calibration_get,
    judge_calibration_retire,
    judge_calibration_update,
    judge_version_approved_for_online,
)
from judges.models import CalibrationStatus
from tests.factories import JudgeRunFactory, RubricVersionFactory, TraceFactory, VerdictFactory

pytestmark = pytest.mark.django_db


def agreeing_pairs(n):
    """Binary labels where judge and person agree on every item, both labels present."""
    return [(float(i % 2), float(i % 2)) for i in range(n)]


def test_new_judge_version_is_calibrating_and_not_approved_for_online():
    run = JudgeRunFactory()
    assert judge_calibration_get(run.rubric_version, run.config).status == "calibrating"
    assert not judge_version_approved_for_online(run.rubric_version, run.config)


def test_approved_once_kappa_clears_the_bar_on_enough_items():
    run = JudgeRunFactory()
    # given 29 agreeing labels: one short of the minimum
    result = judge_calibration_update(run.rubric_version, run.config, agreeing_pairs(29))
    assert result.status == CalibrationStatus.CALIBRATING
    assert result.kappa == pytest.approx(1.0)
    # when the 30th arrives
    result = judge_calibration_update(run.rubric_version, run.config, agreeing_pairs(30))
    # then the version is approved for live traffic
    assert result.status == CalibrationStatus.APPROVED
    assert result.items == 30
    assert judge_version_approved_for_online(run.rubric_version, run.config)


def test_not_approved_when_kappa_is_below_the_bar():
    run = JudgeRunFactory()
    # judge says pass on everything; people fail a third: kappa 0 despite 67% agreement
    pairs = [(1.0, 0.0 if i % 3 == 0 else 1.0) for i in range(60)]
    result = judge_calibration_update(run.rubric_version, run.config, pairs)
    assert result.status == CalibrationStatus.CALIBRATING
    assert result.kappa == pytest.approx(0.0)


def test_a_later_window_below_the_bar_flags_the_version_and_blocks_online_use():
    run = JudgeRunFactory()
    judge_calibration_update(run.rubric_version, run.config, agreeing_pairs(60))
    # when the latest 30 labels disagree with the judge half of the time
    drift = [(float(i % 2), float((i // 2) % 2)) for i in range(30)]
    result = judge_calibration_update(run.rubric_version, run.config, agreeing_pairs(60) + drift)
    assert result.flagged
    assert result.status == CalibrationStatus.CALIBRATING
    assert "last 30 human labels" in result.flag_reason
    assert result.kappa > 0.6 > result.window_kappa
    assert not judge_version_approved_for_online(run.rubric_version, run.config)


def test_ordinal_rubric_uses_linear_weighted_kappa():
    version = RubricVersionFactory(one_to_five=True)
    run = JudgeRunFactory(rubric_version=version)
    # off by one everywhere: partial credit keeps weighted kappa positive, unweighted is < 0
    judge = [h % 4 + 2 for h in range(40)]
    human = [h % 4 + 1 for h in range(40)]
    pairs = list(zip(judge, human, strict=True))
    result = judge_calibration_update(version, run.config, pairs)
    labels = [1, 2, 3, 4, 5]
    assert result.kappa == pytest.approx(
        cohen_kappa_score(judge, human, labels=labels, weights="linear")
    )
    assert result.kappa == pytest.approx(1 / 3)
    assert cohen_kappa_score(judge, human, labels=labels) < 0


def test_first_verdicts_are_all_sampled_then_a_share(settings):
    settings.CALIBRATION_FIRST_SAMPLED = 5
    run = JudgeRunFactory()
    verdicts = [VerdictFactory(run=run, status="agreed", score=1.0) for _ in range(205)]
    sampled = [calibration_sample_claim(v) for v in verdicts]
    assert all(sampled[:5])
    later = sum(sampled[5:])
    assert 8 <= later <= 36  # about 10% of 200
    assert judge_calibration_get(run.rubric_version, run.config).verdicts_seen == 205


def test_unscored_and_approved_verdicts_are_not_sampled():
    run = JudgeRunFactory()
    assert not calibration_sample_claim(VerdictFactory(run=run, status="failed", score=None))
    judge_calibration_update(run.rubric_version, run.config, agreeing_pairs(30))
    assert not calibration_sample_claim(VerdictFactory(run=run, status="agreed", score=1.0))


def test_retired_version_is_neither_sampled_nor_approved():
    run = JudgeRunFactory()
    judge_calibration_update(run.rubric_version, run.config, agreeing_pairs(30))
    judge_calibration_retire(run.rubric_version, run.config)
    assert not judge_version_approved_for_online(run.rubric_version, run.config)
    verdict = VerdictFactory(run=run, trace=TraceFactory(), status="agreed", score=1.0)
    assert not calibration_sample_claim(verdict)
