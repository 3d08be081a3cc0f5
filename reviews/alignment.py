"""Alignment proposals from calibration labels: reviews holds the labels, judges drafts and
scores the revision (judges/alignment/proposals.py)."""

from __future__ import annotations

from django.db import transaction

from judges.alignment.models import AlignmentProposal
from judges.alignment.proposals import LabelledCase, alignment_draft, alignment_score
from judges.models import JudgeCalibration
from reviews.calibration_receivers import calibration_items_settled
from reviews.models import Annotation


def calibration_cases(rubric_version, config) -> list[LabelledCase]:
    """The judge version's settled calibration labels, oldest first, on traces anyone may see,
    each with the settling answer's explanation and failure tags."""
    items = list(
        calibration_items_settled(rubric_version, config).select_related("trace", "verdict")
    )
    answers: dict[int, Annotation] = {}
    # The latest active answer with the settled score explains it (an adjudication if any).
    for answer in Annotation.objects.filter(
        item_id__in=[i.pk for i in items], undone_at__isnull=True
    ).order_by("is_adjudication", "created_at", "pk"):
        answers[answer.item_id] = answer
    cases = []
    for item in items:
        answer = answers.get(item.pk)
        cases.append(
            LabelledCase(
                item_id=item.pk,
                trace=item.trace,
                judge_score=float(item.verdict.score),
                human_score=float(item.resolved_score),
                explanation=answer.explanation if answer else "",
                failure_tags=tuple(answer.failure_tags or ()) if answer else (),
            )
        )
    return cases


def alignment_propose(*, calibration: JudgeCalibration, user=None) -> AlignmentProposal:
    """Draft the revision now; the judge scores old and new on the labels in a task."""
    from reviews.tasks import alignment_proposal_score_task  # the task module imports this one

    cases = calibration_cases(calibration.rubric_version, calibration.config)
    proposal = alignment_draft(
        version=calibration.rubric_version, config=calibration.config, cases=cases, user=user
    )
    transaction.on_commit(lambda: alignment_proposal_score_task.delay(proposal.pk))
    return proposal


def alignment_proposal_run(proposal_id: int) -> AlignmentProposal | None:
    """Score a proposal on the labels as they are now (the task calls this)."""
    proposal = (
        AlignmentProposal.objects.select_related("source_version", "proposed_version", "config")
        .filter(pk=proposal_id)
        .first()
    )
    if proposal is None:
        return None
    cases = calibration_cases(proposal.source_version, proposal.config)
    return alignment_score(proposal, cases)
