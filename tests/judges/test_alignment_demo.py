"""Alignment on the demo: its calibration labels, the simulated judge, kappa before and after."""

import pytest

from demo.calibration import demo_calibration_label
from demo.loader import demo_load
from judges.alignment.models import AlignmentStatus
from judges.execution import judgment_execute
from judges.models import JudgeCalibration, Judgment, JudgmentStatus, RubricVersionStatus
from reviews.alignment import alignment_proposal_run, alignment_propose, calibration_cases

pytestmark = pytest.mark.django_db


@pytest.fixture
def labelled_demo(simulator, settings, tmp_path, django_capture_on_commit_callbacks):
    """The demo judged by the simulated judge, its calibration samples labelled by annie."""
    settings.VAR_DIR = tmp_path
    with django_capture_on_commit_callbacks(execute=False):
        demo_load()
        pending = Judgment.objects.filter(status=JudgmentStatus.PENDING)
        for pk in pending.values_list("pk", flat=True):
            judgment_execute(pk)
    with django_capture_on_commit_callbacks(execute=False):
        counts = demo_calibration_label()
    assert counts["labelled"] > 10
    return JudgeCalibration.objects.get(rubric_version__rubric__name="Tool-call decision accuracy")


def test_alignment_proposal_on_the_demo_shows_kappa_before_and_after(
    labelled_demo, django_capture_on_commit_callbacks
):
    # given the demo's labels, where people failed trajectories the simulated judge passed
    cases = calibration_cases(labelled_demo.rubric_version, labelled_demo.config)
    assert sum(c.disagrees for c in cases) >= 2
    # when a proposal is drafted, then scored (the task, after commit)
    with django_capture_on_commit_callbacks(execute=False) as scheduled:
        proposal = alignment_propose(calibration=labelled_demo)
    assert len(scheduled) == 1
    draft = proposal.proposed_version
    assert draft.status == RubricVersionStatus.DRAFT and draft.number == 2
    assert "Corrections from people's labels:" in draft.rubric_text
    assert "Example 1: people scored it" in draft.rubric_text
    proposal = alignment_proposal_run(proposal.pk)
    # then every labelled item was scored under both versions
    assert proposal.status == AlignmentStatus.DONE
    assert len(proposal.cases) == len(cases)
    assert all(r["before"] is not None and r["after"] is not None for r in proposal.cases)
    # the corrected examples now agree with people, and nothing else got worse
    examples = [r for r in proposal.cases if r["example"]]
    assert examples and all(r["after"] == r["human"] != r["before"] for r in examples)
    assert proposal.kappa_after_all > proposal.kappa_before_all
    assert proposal.kappa_after >= proposal.kappa_before
    worse = [r for r in proposal.cases if r["before"] == r["human"] != r["after"]]
    assert worse == []
    # and the old version's calibration is untouched: the draft goes through the gate itself
    labelled_demo.refresh_from_db()
    assert labelled_demo.rubric_version.number == 1
