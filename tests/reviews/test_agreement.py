"""Agreement statistics: known values from the libraries, and per queue from annotations."""

import pytest

from accounts.roles import ANNOTATOR
from reviews.agreement import queue_agreement, ratings_agreement
from reviews.models import Annotation
from tests.factories import QueueFactory, ReviewItemFactory, UserFactory


def test_two_raters_in_perfect_agreement_have_kappa_and_alpha_of_one():
    ratings = [(i, r, float(i % 2)) for i in range(6) for r in (1, 2)]
    result = ratings_agreement(ratings)
    assert result.items == 6
    assert result.raters == 2
    assert result.cohen_kappa == pytest.approx(1.0)
    assert result.krippendorff_alpha == pytest.approx(1.0)
    assert result.level == "nominal"


def test_two_raters_who_always_disagree_have_negative_kappa():
    first = [(i, 1, float(i % 2)) for i in range(6)]
    ratings = first + [(i, 2, float(1 - i % 2)) for i in range(6)]
    result = ratings_agreement(ratings)
    assert result.cohen_kappa == pytest.approx(-1.0)
    assert result.krippendorff_alpha < 0


def test_kappa_matches_a_hand_computed_value():
    # Rater A: 1 1 0 0 1, rater B: 1 0 0 0 1 -> po = 0.8, pe = 0.6*0.4 + 0.4*0.6 = 0.48
    a, b = [1, 1, 0, 0, 1], [1, 0, 0, 0, 1]
    ratings = [(i, 1, float(v)) for i, v in enumerate(a)] + [
        (i, 2, float(v)) for i, v in enumerate(b)
    ]
    assert ratings_agreement(ratings).cohen_kappa == pytest.approx((0.8 - 0.48) / (1 - 0.48))


def test_three_raters_get_alpha_only_and_ordinal_scores_use_the_ordinal_level():
    ratings = [
        (1, 1, 1.0), (1, 2, 1.0), (1, 3, 2.0),
        (2, 1, 4.0), (2, 2, 5.0), (2, 3, 4.0),
        (3, 1, 3.0), (3, 2, 3.0), (3, 3, 3.0),
    ]  # fmt: skip
    result = ratings_agreement(ratings)
    assert result.raters == 3
    assert result.cohen_kappa is None
    assert result.level == "ordinal"
    assert 0.5 < result.krippendorff_alpha <= 1.0


def test_items_with_a_single_answer_do_not_count():
    result = ratings_agreement([(1, 1, 1.0), (2, 2, 0.0)])
    assert result.items == 0
    assert result.krippendorff_alpha is None
    assert result.note


@pytest.mark.django_db
def test_queue_agreement_ignores_undone_answers_and_adjudications():
    queue = QueueFactory(name="Overlap", annotators_per_item=2)
    a, b = UserFactory(roles=[ANNOTATOR]), UserFactory(roles=[ANNOTATOR])
    for index, (score_a, score_b) in enumerate([(1, 1), (0, 0), (1, 0), (0, 0)]):
        item = ReviewItemFactory(queue=queue)
        Annotation.objects.create(item=item, annotator=a, score=score_a)
        Annotation.objects.create(item=item, annotator=b, score=score_b)
        if index == 0:
            Annotation.objects.create(item=item, annotator=a, score=0, is_adjudication=True)
    lone = ReviewItemFactory(queue=queue)
    Annotation.objects.create(item=lone, annotator=a, score=1)
    Annotation.objects.create(item=lone, annotator=b, score=0, undone_at="2026-01-01T00:00Z")
    result = queue_agreement(queue)
    assert result.items == 4
    assert result.raters == 2
    # a: 1 0 1 0, b: 1 0 0 0 -> po = .75, pe = .5*.25 + .5*.75 = .5 -> kappa .5
    assert result.cohen_kappa == pytest.approx(0.5)
