"""Knobs are settings read when they are used, so override_settings (and a restarted process
with a new environment) changes them without re-importing any module."""

from datetime import UTC, datetime, timedelta

import pytest
from django.test import override_settings

from judges.calibration import judge_calibration_update
from judges.models import CalibrationStatus, ScoreType
from metrics.redflags import flag_rules_build
from reviews.claims import lock_expiry
from tests.factories import JudgeConfigFactory, RubricVersionFactory

AGREEING = [(1.0, 1.0), (0.0, 0.0)] * 3


def test_the_review_lock_follows_the_setting():
    now = datetime(2026, 3, 14, 9, 0, tzinfo=UTC)
    assert lock_expiry(now) == now + timedelta(minutes=15)
    with override_settings(REVIEW_LOCK_SECONDS=90):
        assert lock_expiry(now) == now + timedelta(seconds=90)


def test_red_flag_thresholds_follow_the_settings():
    assert (flag_rules_build({}).max_steps, flag_rules_build({}).loop_repeats) == (30, 3)
    with override_settings(TRAJECTORY_MAX_STEPS=12, TRAJECTORY_LOOP_REPEATS=2):
        rules = flag_rules_build({})
    assert (rules.max_steps, rules.loop_repeats) == (12, 2)


@pytest.mark.django_db
def test_the_calibration_gate_follows_the_settings():
    # given six labels on which judge and people agree
    version = RubricVersionFactory(score_type=ScoreType.BINARY)
    config = JudgeConfigFactory()
    # when the minimum is the default thirty, they are too few
    assert judge_calibration_update(version, config, AGREEING).status == (
        CalibrationStatus.CALIBRATING
    )
    # then lowering it approves the version on the same labels
    with override_settings(CALIBRATION_MIN_ITEMS=6):
        calibration = judge_calibration_update(version, config, AGREEING)
    assert calibration.status == CalibrationStatus.APPROVED
