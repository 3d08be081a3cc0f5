"""Per-criterion rubrics: people answer each question yes or no, scored as the judge scores."""

import pytest
from django.urls import reverse

from core.errors import ApplicationError
from judges.models import ScoreType
from reviews.claims import review_item_claim_next
from reviews.models import Annotation
from reviews.services import review_item_resolve
from tests.factories import QueueFactory, ReviewItemFactory, RubricVersionFactory

pytestmark = pytest.mark.django_db

QUESTIONS = [
    {"question": "Did the agent look the order up before cancelling?"},
    {"question": "Did it confirm the refund amount?"},
    {"question": "Did it stop after the customer said thanks?"},
]


@pytest.fixture
def criteria_item(annotator):
    version = RubricVersionFactory(
        score_type=ScoreType.CRITERIA, score_min=0, score_max=1, criteria=QUESTIONS
    )
    item = ReviewItemFactory(queue=QueueFactory(), rubric_version=version)
    assert review_item_claim_next(user=annotator, queue=item.queue).pk == item.pk
    return item


def test_the_score_is_the_share_of_criteria_met(annotator, criteria_item):
    annotation = review_item_resolve(
        item=criteria_item, user=annotator, criteria_results=[True, False, True]
    )
    assert annotation.score == pytest.approx(2 / 3)
    assert [c["met"] for c in annotation.criteria_results] == [True, False, True]
    assert annotation.criteria_results[1]["question"] == "Did it confirm the refund amount?"


def test_every_criterion_needs_an_answer(annotator, criteria_item):
    with pytest.raises(ApplicationError) as refused:
        review_item_resolve(item=criteria_item, user=annotator, criteria_results=[True])
    assert refused.value.field == "criteria_results"
    assert not Annotation.objects.exists()


def test_the_page_asks_each_question_and_saves_the_answers(client, annotator, criteria_item):
    client.force_login(annotator)
    html = client.get(reverse("reviews:item_detail", args=[criteria_item.pk])).content.decode()
    assert "Did it confirm the refund amount?" in html
    assert 'name="criterion_2"' in html
    url = reverse("reviews:item_resolve", args=[criteria_item.pk])
    incomplete = client.post(url, {"criterion_0": "yes", "explanation": "kept"})
    assert incomplete.status_code == 400
    assert "Answer every criterion" in incomplete.content.decode()
    assert ">kept</textarea>" in incomplete.content.decode()
    client.post(url, {"criterion_0": "yes", "criterion_1": "yes", "criterion_2": "no"})
    assert Annotation.objects.get().score == pytest.approx(2 / 3)


def test_the_api_takes_criteria_answers(api_client_for, annotator, criteria_item):
    response = api_client_for(annotator).post(
        f"/api/reviews/items/{criteria_item.pk}/resolve/",
        {"criteria_results": [False, False, True]},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["score"] == pytest.approx(1 / 3)
    assert response.json()["criteria_results"][2]["met"] is True
