"""Reads for the calibration pages: each judge version's gate, matrix and disagreeing cases."""

from __future__ import annotations

from django.conf import settings
from django.db.models import F, QuerySet
from django.shortcuts import get_object_or_404

from core.stats import agreement_measure
from judges.calibration import rubric_version_scale
from judges.models import JudgeCalibration, ScoreType
from judges.pairwise_verdicts import position_bias_by_version
from reviews.calibration_receivers import calibration_label_pairs
from reviews.models import ReviewItem, ReviewReason, ReviewStatus
from reviews.pairwise_judge import pairwise_calibration_pairs
from traces.selectors import traces_visible

DISAGREEMENTS_SHOWN = 50


def calibration_get_or_404(calibration_id: int) -> JudgeCalibration:
    """One calibration with the judge version and config its pages name."""
    return get_object_or_404(
        JudgeCalibration.objects.select_related("rubric_version__rubric", "config"),
        pk=calibration_id,
    )


def calibration_list() -> QuerySet[JudgeCalibration]:
    return JudgeCalibration.objects.select_related("rubric_version__rubric", "config").order_by(
        "rubric_version__rubric__name", "-rubric_version__number", "config__name"
    )


def calibration_rows(calibrations) -> list[dict]:
    """Each judge version with its position bias (pairwise versions: how often the answer
    followed the order the pair was shown in, over pairs asked both ways)."""
    calibrations = list(calibrations)
    bias = position_bias_by_version(
        {
            c.rubric_version_id
            for c in calibrations
            if c.rubric_version.score_type == ScoreType.PAIRWISE
        }
    )
    return [
        {"calibration": c, "bias": bias.get((c.rubric_version_id, c.config_id))}
        for c in calibrations
    ]


def calibration_detail(calibration: JudgeCalibration) -> dict:
    """The confusion matrix of the judge against blind human labels, and where they differ."""
    version, config = calibration.rubric_version, calibration.config
    if version.score_type == ScoreType.PAIRWISE:
        pairs = pairwise_calibration_pairs(version, config)
    else:
        pairs = calibration_label_pairs(version, config)
    labels, ordinal = rubric_version_scale(version)
    judge = [float(j) for j, _ in pairs]
    human = [float(h) for _, h in pairs]
    if labels is not None and not set(judge) | set(human) <= set(labels):
        labels = None
    measure = agreement_measure(judge, human, ordinal=ordinal, labels=labels)
    labelled = ReviewItem.objects.filter(
        reason=ReviewReason.CALIBRATION,
        status=ReviewStatus.RESOLVED,
        verdict__rubric_version=version,
        verdict__config=config,
        resolved_score__isnull=False,
    ).exclude(resolved_score=F("verdict__score"))
    disagreements = (
        traces_visible(None, labelled, via="trace")
        .select_related("trace", "verdict")
        .order_by("-resolved_at")[:DISAGREEMENTS_SHOWN]
    )
    return {
        "measure": measure,
        "disagreements": list(disagreements),
        "bar": settings.CALIBRATION_KAPPA_BAR,
        "min_items": settings.CALIBRATION_MIN_ITEMS,
    }
