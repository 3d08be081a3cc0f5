"""Calibration gate: a judge version scores live traffic only once it agrees with people.

A judge version is a rubric version run under a judge config. While it is calibrating, the
first verdicts and then a share of them go to people in blind mode; their labels come back
here as (judge score, human score) pairs, and the version is approved once the kappa reaches
the bar on enough items. A later window that drops below the bar flags it and sends it back.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core.stats import agreement_measure
from judges.models import CalibrationStatus, JudgeCalibration, ScoreType, Verdict
from judges.signals import judge_drift_flagged
from judges.sql import calibration_status


def judge_calibration_get(rubric_version, config) -> JudgeCalibration:
    """The calibration row of a judge version; a version never seen starts calibrating."""
    calibration, _ = JudgeCalibration.objects.get_or_create(
        rubric_version=rubric_version, config=config
    )
    return calibration


def judge_version_approved_for_online(rubric_version, config) -> bool:
    """Online judging of live traffic may use this judge version only when this is True."""
    return JudgeCalibration.objects.filter(
        rubric_version=rubric_version, config=config, status=CalibrationStatus.APPROVED
    ).exists()


def calibration_may_sample(verdict: Verdict) -> bool:
    """Whether a verdict can be a calibration sample: it has a score and its judge version is
    calibrating or not yet seen. One plain query: approved versions, the bulk of traffic,
    stop here, before anything else is asked about the verdict."""
    if verdict.score is None:
        return False
    status = calibration_status(verdict.rubric_version_id, verdict.config_id)
    return status is None or status == CalibrationStatus.CALIBRATING


def _sample_fraction(verdict: Verdict) -> float:
    """A stable number in [0, 1) per verdict, so a retried hand-off samples the same way."""
    key = f"{verdict.trace_id}:{verdict.rubric_version_id}:{verdict.config_id}:{verdict.run_id}"
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 0x100000000


def calibration_sample_claim(verdict: Verdict) -> bool:
    """Count a verdict against its calibrating judge version; True if a person should label it.

    The first CALIBRATION_FIRST_SAMPLED scored verdicts are all sampled, then
    CALIBRATION_SAMPLE_RATE of them.
    """
    if verdict.score is None:
        return False
    calibration = judge_calibration_get(verdict.rubric_version, verdict.config)
    # Approved versions (the bulk of traffic) return before taking any row lock.
    if calibration.status != CalibrationStatus.CALIBRATING:
        return False
    rows = JudgeCalibration.objects.filter(pk=calibration.pk, status=CalibrationStatus.CALIBRATING)
    if calibration.verdicts_seen >= settings.CALIBRATION_FIRST_SAMPLED:
        # Past the first ones the share is decided by hash; the count is only informative.
        rows.update(verdicts_seen=F("verdicts_seen") + 1)
        return _sample_fraction(verdict) < settings.CALIBRATION_SAMPLE_RATE
    with transaction.atomic():
        locked = rows.select_for_update().first()
        if locked is None:
            return False
        locked.verdicts_seen += 1
        locked.save(update_fields=["verdicts_seen", "updated_at"])
    first = locked.verdicts_seen <= settings.CALIBRATION_FIRST_SAMPLED
    return first or _sample_fraction(verdict) < settings.CALIBRATION_SAMPLE_RATE


def rubric_version_scale(rubric_version) -> tuple[list[float] | None, bool]:
    """The labels of a rubric version's scale and whether it is ordinal."""
    if rubric_version.score_type == ScoreType.BINARY:
        return [0.0, 1.0], False
    if rubric_version.score_type == ScoreType.RANGE:
        low, high = int(rubric_version.score_min), int(rubric_version.score_max)
        return [float(v) for v in range(low, high + 1)], True
    if rubric_version.score_type in (ScoreType.CONTINUOUS, ScoreType.PAIRWISE):
        # A pairwise preference is ordered too: the first trace, equal, the other.
        return [0.0, 0.5, 1.0], True
    return None, False


def judge_calibration_update(
    rubric_version, config, pairs: Sequence[tuple[float, float]]
) -> JudgeCalibration:
    """Re-measure a judge version from (judge, human) score pairs, oldest first, and gate it."""
    labels, ordinal = rubric_version_scale(rubric_version)
    judge = [float(j) for j, _ in pairs]
    human = [float(h) for _, h in pairs]
    overall = agreement_measure(judge, human, ordinal=ordinal, labels=labels, resamples=0)
    recent = settings.CALIBRATION_WINDOW
    window = agreement_measure(
        judge[-recent:], human[-recent:], ordinal=ordinal, labels=labels, resamples=0
    )
    bar = settings.CALIBRATION_KAPPA_BAR
    with transaction.atomic():
        judge_calibration_get(rubric_version, config)
        calibration = JudgeCalibration.objects.select_for_update().get(
            rubric_version=rubric_version, config=config
        )
        calibration.kappa, calibration.items = overall.kappa, overall.n
        calibration.window_kappa = window.kappa
        fields = ["kappa", "items", "window_kappa", "updated_at"]
        enough = overall.n >= settings.CALIBRATION_MIN_ITEMS
        window_ok = window.kappa is not None and window.kappa >= bar
        if calibration.status == CalibrationStatus.CALIBRATING and enough and window_ok:
            if overall.kappa is not None and overall.kappa >= bar:
                calibration.status = CalibrationStatus.APPROVED
                calibration.approved_at = timezone.now()
                calibration.flagged, calibration.flag_reason = False, ""
                fields += ["status", "approved_at", "flagged", "flag_reason"]
        elif calibration.status == CalibrationStatus.APPROVED and enough and not window_ok:
            # Drift: stop trusting it for live traffic and sample it again until it recovers.
            calibration.status = CalibrationStatus.CALIBRATING
            calibration.flagged = True
            shown = "undefined" if window.kappa is None else f"{window.kappa:.2f}"
            calibration.flag_reason = (
                f"Kappa over the last {window.n} human labels fell to {shown}, below the bar "
                f"of {bar}; it is back to calibrating until a window clears the bar."
            )
            fields += ["status", "flagged", "flag_reason"]
        calibration.save(update_fields=fields)
        if "flag_reason" in fields and calibration.flagged:
            judge_drift_flagged.send(sender=JudgeCalibration, calibration=calibration)
    return calibration


def judge_calibration_retire(rubric_version, config) -> JudgeCalibration:
    """Retire a judge version: it is neither sampled nor used for live traffic any more."""
    calibration = judge_calibration_get(rubric_version, config)
    calibration.status = CalibrationStatus.RETIRED
    calibration.save(update_fields=["status", "updated_at"])
    return calibration


def judge_calibration_restart(rubric_version, config) -> JudgeCalibration:
    """Put a judge version back to calibrating: sampled again, approved again only on evidence."""
    calibration = judge_calibration_get(rubric_version, config)
    calibration.status = CalibrationStatus.CALIBRATING
    calibration.save(update_fields=["status", "updated_at"])
    return calibration
