"""A pairwise queue's judge: which judge version answers its pairs, how well it agrees with
people, and whether it may pre-fill or replace their answers.

The queue's rubric (a pairwise one) under the queue's judge config is the judge version. Each
pair is judged as (trace = baseline, pair_trace = candidate), so the judge's agreed score and
the item's settled score are both the preference for the candidate (0, 0.5, 1) and compare
directly. The version is calibrated like any judge version (judges.calibration): Cohen's kappa
of its answers against the pairs people settled, on enough pairs, at or above the bar. Until
then its answers only measure it: people never see them, and nothing is settled by it.
"""

from __future__ import annotations

from judges.calibration import judge_calibration_update, judge_version_approved_for_online
from judges.models import (
    JudgeCalibration,
    JudgeConfig,
    JudgeRun,
    Judgment,
    JudgmentStatus,
    PairwiseVerdict,
    PairwiseVerdictStatus,
    RubricVersion,
    ScoreType,
)
from judges.pairwise_runs import pairwise_run_start
from judges.pairwise_verdicts import position_bias_by_version
from judges.providers import default_judge_config
from reviews.models import JudgeAssist, PairwiseComparison, Queue, QueueKind, ReviewStatus


def queue_judge_version(queue: Queue) -> tuple[RubricVersion, JudgeConfig] | None:
    """The judge version of a pairwise queue with its judge switched on, or None."""
    if queue.judge_assist == JudgeAssist.OFF or not queue.rubric_id:
        return None
    version = queue.rubric.latest_version()
    if version is None or version.score_type != ScoreType.PAIRWISE:
        return None
    config = queue.judge_config or default_judge_config()
    if config.pk is None:
        return None
    return version, config


def queue_judge_calibrated(queue: Queue) -> bool:
    """Whether the queue's judge version is calibrated: only then is its pick shown or used."""
    found = queue_judge_version(queue)
    return found is not None and judge_version_approved_for_online(*found)


def pairwise_pairs_judge(queue: Queue, comparisons=None, user=None) -> JudgeRun | None:
    """Ask the queue's judge about its pairs (all of them, or these) it has not answered
    under its current version; None when the judge is off or every pair is answered."""
    found = queue_judge_version(queue)
    if found is None:
        return None
    version, config = found
    if comparisons is None:
        comparisons = PairwiseComparison.objects.filter(item__queue=queue)
    wanted = [(c.baseline_trace_id, c.candidate_trace_id) for c in comparisons]
    baselines = {base for base, _ in wanted}
    # Answered, or being asked: a pass still pending counts, so a second call asks nothing.
    answered = set(
        PairwiseVerdict.objects.filter(
            rubric_version=version, config=config, trace_id__in=baselines
        ).values_list("trace_id", "pair_trace_id")
    ) | set(
        Judgment.objects.filter(
            rubric_version=version,
            config=config,
            trace_id__in=baselines,
            pair_trace__isnull=False,
            status__in=(JudgmentStatus.PENDING, JudgmentStatus.RUNNING),
        ).values_list("trace_id", "pair_trace_id")
    )
    pairs = [pair for pair in wanted if pair not in answered]
    if not pairs:
        return None
    return pairwise_run_start(rubric_version=version, config=config, pairs=pairs, user=user)


def pairwise_calibration_pairs(version, config) -> list[tuple[float, float]]:
    """(judge, people) preferences for the candidate, oldest settled first: pairs people
    settled (not the judge) on which this judge version agreed with itself in both orders.
    An unsure pair has no judge answer; it is counted by the position-bias figure instead."""
    settled = (
        PairwiseComparison.objects.filter(
            settled_by_judge=False,
            item__status=ReviewStatus.RESOLVED,
            item__resolved_score__isnull=False,
        )
        .order_by("item__resolved_at", "pk")
        .values_list("baseline_trace_id", "candidate_trace_id", "item__resolved_score")
    )
    judged = {
        (trace_id, pair_id): score
        for trace_id, pair_id, score in PairwiseVerdict.objects.filter(
            rubric_version=version,
            config=config,
            status=PairwiseVerdictStatus.AGREED,
            score__isnull=False,
        )
        .order_by("pk")
        .values_list("trace_id", "pair_trace_id", "score")
    }
    return [
        (judged[(base, cand)], people) for base, cand, people in settled if (base, cand) in judged
    ]


def pairwise_judge_calibrate(version, config):
    """Re-measure a pairwise judge version against people's settled pairs, and gate it."""
    return judge_calibration_update(version, config, pairwise_calibration_pairs(version, config))


def queue_judge_summary(queue: Queue) -> dict | None:
    """The queue page's judge panel: version, calibration, position bias, what it settled."""
    if queue.kind != QueueKind.PAIRWISE:
        return None
    found = queue_judge_version(queue)
    if found is None:
        return {"on": False, "assist": queue.get_judge_assist_display()}
    version, config = found
    calibration = JudgeCalibration.objects.filter(rubric_version=version, config=config).first()
    comparisons = PairwiseComparison.objects.filter(item__queue=queue)
    return {
        "on": True,
        "assist": queue.get_judge_assist_display(),
        "version": version,
        "config": config,
        "calibration": calibration,
        "calibrated": judge_version_approved_for_online(version, config),
        "bias": position_bias_by_version([version.pk]).get((version.pk, config.pk)),
        "pairs": comparisons.count(),
        "answered": comparisons.filter(
            judge_verdict__rubric_version=version, judge_verdict__config=config
        ).count(),
        "settled_by_judge": comparisons.filter(settled_by_judge=True).count(),
        "counts_for_gate": queue.judge_answers_confirm_gate,
    }
