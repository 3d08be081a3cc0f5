"""The item page says where the person is and how fast; undo brings the answer back; one "Saved"."""

import pytest
from django.urls import reverse

from reviews.claims import review_item_claim_next
from reviews.models import Annotation
from tests.factories import QueueFactory, ReviewItemFactory

pytestmark = pytest.mark.django_db


def _answer(client, item, score="0", **extra):
    return client.post(reverse("reviews:item_resolve", args=[item.pk]), {"score": score, **extra})


def test_item_page_shows_position_in_the_queue_and_pace(client, annotator):
    # given a queue of four and two answers already given
    queue = QueueFactory()
    items = [ReviewItemFactory(queue=queue) for _ in range(4)]
    client.force_login(annotator)
    client.post(reverse("reviews:queue_claim", args=[queue.pk]))
    _answer(client, items[0])
    _answer(client, items[1])
    # when the third item opens
    response = client.get(reverse("reviews:item_detail", args=[items[2].pk]))
    # then
    html = response.content.decode()
    progress = response.context["progress"]
    assert (progress.position, progress.total, progress.answered_last_hour) == (3, 4, 2)
    assert "Item 3 of 4 in this queue" in html
    assert "you answered 2 in the last hour, about" in html and "per item" in html


def test_saved_is_said_once_on_the_next_item(client, annotator):
    queue = QueueFactory()
    first, second = ReviewItemFactory(queue=queue), ReviewItemFactory(queue=queue)
    client.force_login(annotator)
    client.post(reverse("reviews:queue_claim", args=[queue.pk]))
    response = _answer(client, first)
    html = client.get(response.url).content.decode()
    assert response.url == reverse("reviews:item_detail", args=[second.pk])
    assert html.count(f"Saved item #{first.pk}") == 1


def test_the_last_answer_of_a_queue_is_still_confirmed(client, annotator):
    queue = QueueFactory()
    only = ReviewItemFactory(queue=queue)
    client.force_login(annotator)
    client.post(reverse("reviews:queue_claim", args=[queue.pk]))
    response = _answer(client, only)
    assert f"Saved item #{only.pk}" in client.get(response.url).content.decode()


def test_undo_brings_the_form_back_with_the_answer(client, annotator):
    # given an answer with a score, an explanation, a known and a custom failure tag
    queue = QueueFactory()
    item, _other = ReviewItemFactory(queue=queue), ReviewItemFactory(queue=queue)
    assert review_item_claim_next(user=annotator, queue=queue).pk == item.pk
    client.force_login(annotator)
    _answer(
        client,
        item,
        explanation="Cancelled the wrong order.",
        failure_tags=["premature_termination"],
        custom_tags="policy breach",
    )
    annotation = Annotation.objects.get(item=item)
    # when it is undone
    response = client.post(reverse("reviews:annotation_undo", args=[annotation.pk]), follow=True)
    # then the item page has the answer filled in again
    html = response.content.decode()
    assert "Cancelled the wrong order.</textarea>" in html
    assert 'value="premature_termination" checked' in html
    assert 'value="policy breach"' in html
    assert response.context["form"]["score"].value() == 0
