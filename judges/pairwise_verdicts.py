"""The pairwise judge's verdict on a pair, and how often a judge version follows the position.

Reconciliation runs inside the transaction that holds both passes of (trace, pair_trace, run)
locked, so two passes finishing at once cannot both write a verdict, and the hand-off to
reviews is sent in the same transaction as the verdict it is about.

Pass 1 shows `trace` as A, pass 2 shows it as B. Un-swapped, the two answers agreeing is the
verdict. When they differ the order decided, not the trajectories: the verdict is
`position_biased` and people answer the pair. When both passes named the same letter (A twice,
or B twice), the answer followed the position outright; the share of such pairs among those
both passes answered is the version's position bias.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q

from judges.models import (
    JudgeConfig,
    JudgeRun,
    Judgment,
    JudgmentStatus,
    PairwiseVerdict,
    PairwiseVerdictStatus,
    ParseStatus,
)
from judges.signals import pairwise_verdict_written

UNFINISHED = (JudgmentStatus.PENDING, JudgmentStatus.RUNNING)


def pair_passes_locked(judgment: Judgment) -> list[Judgment]:
    """Both passes of a pass's pair in its run, locked in primary-key order; inside the
    caller's transaction. The trace and version rows are the caller's."""
    passes = list(
        Judgment.objects.select_for_update()
        .filter(
            trace_id=judgment.trace_id, pair_trace_id=judgment.pair_trace_id, run_id=judgment.run_id
        )
        .order_by("pk")
    )
    for locked in passes:
        locked.trace = judgment.trace
        locked.rubric_version = judgment.rubric_version
    return passes


def _criteria_joined(usable: list[Judgment]) -> list[dict]:
    """Per question, the passes' un-swapped answers side by side; `preferred` where they
    agree, None where the order changed the answer."""
    joined: list[dict] = []
    for index, first in enumerate(usable[0].criteria_results or []):
        answers = [
            (p.criteria_results or [])[index]
            for p in usable
            if index < len(p.criteria_results or [])
        ]
        preferred = {a.get("preferred") for a in answers}
        joined.append(
            {
                "question": first.get("question", ""),
                "preferred": preferred.pop() if len(preferred) == 1 else None,
                "passes": [a.get("shown") for a in answers],
                "reason": first.get("reason", ""),
            }
        )
    return joined


def pairwise_reconcile(
    passes: list[Judgment], run: JudgeRun, config: JudgeConfig | None = None
) -> PairwiseVerdict | None:
    """Write the verdict on one pair once both passes have finished; None while one is
    outstanding or when the run was cancelled under it."""
    if not passes or any(p.status in UNFINISHED for p in passes):
        return None
    if any(p.status == JudgmentStatus.CANCELLED for p in passes):
        return None
    first = passes[0]
    existing = PairwiseVerdict.objects.filter(
        run_id=run.pk, trace_id=first.trace_id, pair_trace_id=first.pair_trace_id
    ).first()
    if existing is not None:
        return existing
    usable = [
        p
        for p in passes
        if p.status == JudgmentStatus.DONE
        and p.parse_status == ParseStatus.OK
        and p.score is not None
    ]
    criteria = _criteria_joined(usable) if len(usable) == len(passes) else []
    followed = False
    if len(usable) < 2 or len(usable) != len(passes):
        status, score = PairwiseVerdictStatus.FAILED, None
        reason = "; ".join(
            f"pass {p.pass_index + 1}: {p.error or p.parse_status or p.status}"
            for p in passes
            if p not in usable
        )
    elif len({p.score for p in usable}) == 1:
        status, score = PairwiseVerdictStatus.AGREED, usable[0].score
        reason = usable[0].explanation
    else:
        status, score = PairwiseVerdictStatus.POSITION_BIASED, None
        shown = [(p.criteria_results or [{}])[-1].get("shown") for p in usable]
        followed = len(set(shown)) == 1 and shown[0] in ("A", "B")
        reason = "The order changed the answer: " + ", ".join(
            f"pass {p.pass_index + 1} said {letter}"
            for p, letter in zip(usable, shown, strict=True)
        )
    verdict = PairwiseVerdict.objects.create(
        run=run,
        rubric_version=first.rubric_version,
        config=config or run.config,
        trace=first.trace,
        pair_trace_id=first.pair_trace_id,
        status=status,
        score=score,
        criteria_results=criteria,
        followed_position=followed,
        reason=reason[:4000],
    )
    pairwise_verdict_written.send(sender=PairwiseVerdict, verdict=verdict)
    return verdict


@dataclass(frozen=True)
class PositionBias:
    """How a pairwise judge version's answers depend on the order it was shown the pair."""

    rubric_version_id: int
    config_id: int
    answered: int  # pairs both passes answered
    agreed: int
    followed_position: int

    @property
    def rate(self) -> float | None:
        """The share of answered pairs whose answer followed the position (A twice or B twice)."""
        return self.followed_position / self.answered if self.answered else None

    @property
    def unsure_rate(self) -> float | None:
        """The share of answered pairs the order changed at all (sent to people)."""
        return (self.answered - self.agreed) / self.answered if self.answered else None


def position_bias_by_version(rubric_version_ids=None) -> dict[tuple[int, int], PositionBias]:
    """Per judge version (rubric version, config): pairs answered, agreed, followed position."""
    rows = PairwiseVerdict.objects.exclude(status=PairwiseVerdictStatus.FAILED)
    if rubric_version_ids is not None:
        rows = rows.filter(rubric_version_id__in=list(rubric_version_ids))
    counted = (
        rows.values("rubric_version_id", "config_id")
        .annotate(
            answered=Count("pk"),
            agreed=Count("pk", filter=Q(status=PairwiseVerdictStatus.AGREED)),
            followed=Count("pk", filter=Q(followed_position=True)),
        )
        .order_by()
    )
    return {
        (row["rubric_version_id"], row["config_id"]): PositionBias(
            row["rubric_version_id"],
            row["config_id"],
            row["answered"],
            row["agreed"],
            row["followed"],
        )
        for row in counted
    }
