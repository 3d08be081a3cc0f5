"""Alignment proposal pages: draft a revision from a judge version's disagreements, see kappa
before and after and the cases that changed, approve the draft (it then calibrates)."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from accounts.roles import CURATOR, require_role
from core.errors import ApplicationError
from insights.calibration import calibration_get_or_404
from judges.adaptive_rubrics.generation import rubric_version_approve
from judges.alignment.models import AlignmentProposal, AlignmentStatus
from judges.models import JudgeCalibration, RubricVersionStatus
from reviews.alignment import alignment_propose
from traces.selectors import traces_visible


@require_POST
@login_required
@require_role(CURATOR)
def alignment_proposal_create(request, calibration_id):
    calibration = calibration_get_or_404(calibration_id)
    try:
        proposal = alignment_propose(calibration=calibration, user=request.user)
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return redirect("insights:calibration_detail", calibration_id=calibration.pk)
    return redirect("insights:alignment_proposal", proposal_id=proposal.pk)


def _proposal_context(proposal: AlignmentProposal, user) -> dict:
    # Curators see every case; the rule is asked anyway, as every page asks it.
    visible = set(
        traces_visible(user)
        .filter(pk__in=[row["trace_id"] for row in proposal.cases])
        .values_list("pk", flat=True)
    )
    rows = [row for row in proposal.cases if row["trace_id"] in visible]
    changed = [row for row in rows if row["changed"]]
    for row in changed:
        fixed = row["after"] == row["human"]
        broke = row["before"] == row["human"]
        row["effect"] = "now agrees" if fixed else "now disagrees" if broke else "still disagrees"
    return {
        "proposal": proposal,
        "bar": settings.CALIBRATION_KAPPA_BAR,
        "calibration": JudgeCalibration.objects.filter(
            rubric_version=proposal.source_version, config=proposal.config
        ).first(),
        "changed": changed,
        "unchanged": len(rows) - len(changed),
        "examples": [row for row in rows if row["example"]],
        "scoring": proposal.status == AlignmentStatus.SCORING,
        "can_approve": proposal.proposed_version.status == RubricVersionStatus.DRAFT
        and proposal.status == AlignmentStatus.DONE,
    }


@login_required
@require_role(CURATOR)
def alignment_proposal_detail(request, proposal_id):
    proposal = get_object_or_404(
        AlignmentProposal.objects.select_related(
            "source_version__rubric", "proposed_version", "config", "created_by"
        ),
        pk=proposal_id,
    )
    return render(
        request, "insights/alignment_proposal.html", _proposal_context(proposal, request.user)
    )


@require_POST
@login_required
@require_role(CURATOR)
def alignment_proposal_approve(request, proposal_id):
    """Approve the drafted version; like any version it then calibrates before live use."""
    proposal = get_object_or_404(AlignmentProposal, pk=proposal_id)
    try:
        version = rubric_version_approve(version=proposal.proposed_version, user=request.user)
    except ApplicationError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            f"{version} is approved. It judges live traffic only after the calibration gate: "
            "its verdicts go to the blind calibration queue until people's kappa clears the bar.",
        )
    return redirect("insights:alignment_proposal", proposal_id=proposal.pk)
