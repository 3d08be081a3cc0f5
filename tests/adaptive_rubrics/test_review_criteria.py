"""People answering a generated rubric's criteria get the score the judge would give."""

import pytest

from judges.adaptive_rubrics.generation import criteria_version_create
from reviews.models import ReviewItem
from reviews.scoring import criteria_score
from tests.factories import QueueFactory, TraceFactory

pytestmark = pytest.mark.django_db


def test_a_reviewers_criteria_answers_are_weighted_like_the_judges(approved_generated):
    criteria = [{"question": "Was A1042 cancelled?", "weight": 3}, {"question": "Quoted?"}]
    version = criteria_version_create(rubric=approved_generated.rubric, criteria=criteria)
    item = ReviewItem(queue=QueueFactory(), trace=TraceFactory(), rubric_version=version)

    score, results = criteria_score(item, [True, False])

    assert score == pytest.approx(0.75)
    assert results == [
        {"question": "Was A1042 cancelled?", "met": True},
        {"question": "Quoted?", "met": False},
    ]
