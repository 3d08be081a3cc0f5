"""Reconciliation and promotion read one rule for a passing score: a middle score on a 1-5
rubric neither routes a red-flagged trace to review as a "pass with a red flag" nor makes the
trace's answer a golden example's expected outcome."""

import pytest

from golden.services import golden_example_promote_draft
from judges.reconcile import judgment_reconcile
from reviews.models import ReviewItem
from tests.factories import JudgeRunFactory, JudgmentFactory, RubricVersionFactory
from tests.golden.builders import resolved_item
from tests.judges import sample_traces

pytestmark = pytest.mark.django_db


def one_to_five():
    return RubricVersionFactory(one_to_five=True)


def test_a_middle_score_is_not_a_pass_when_reconciling():
    trace = sample_traces.support_confident_after_error()  # fires a red flag
    run = JudgeRunFactory(rubric_version=one_to_five())
    passes = [JudgmentFactory(trace=trace, run=run, pass_index=i, score=3.0) for i in (0, 1)]

    judgment_reconcile(passes, run)

    assert not ReviewItem.objects.filter(reason="red_flag").exists()


def test_a_middle_score_is_not_a_pass_when_promoting():
    item = resolved_item(score=3.0)
    item.rubric_version = one_to_five()
    item.save()

    draft, _flagged = golden_example_promote_draft(item=item, annotation=item.annotations.get())

    assert draft["expected_outcome"] == ""  # a "neither" answer is not the reference


def test_an_upper_score_is_a_pass_when_promoting():
    item = resolved_item(score=4.0)
    item.rubric_version = one_to_five()
    item.save()

    draft, _flagged = golden_example_promote_draft(item=item, annotation=item.annotations.get())

    assert draft["expected_outcome"].startswith("Your order A1042 has been cancelled")
