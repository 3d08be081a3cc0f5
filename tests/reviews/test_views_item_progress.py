"""The item page says where the person is and how fast; undo brings the answer back; one "Saved"."""

import pytest
from django.urls import reverse

from reviews.claims import review_item_claim_next
from reviews.models import Annotation
from reviews.selectors import ReviewProgress
from tests.factories import GoldenExampleFactory, QueueFactory, ReviewItemFactory

pytestmark = pytest.mark.django_db


def _answer(client, item, score="0", **extra):
    return client.post(reverse("reviews:item_resolve", args=[item.pk]), {"score": score, **extra})


def test_item_page_shows_what_is_left_in_the_queue_and_pace(client, annotator):
    # given a queue of four, two answers already given, and an item of another queue
    queue = QueueFactory()
    items = [ReviewItemFactory(queue=queue) for _ in range(4)]
    ReviewItemFactory(queue=QueueFactory(name="Another queue"))
    client.force_login(annotator)
    client.post(reverse("reviews:queue_claim", args=[queue.pk]))
    _answer(client, items[0])
    _answer(client, items[1])
    # when the third item opens
    response = client.get(reverse("reviews:item_detail", args=[items[2].pk]))
    # then it and the fourth are left
    html = response.content.decode()
    progress = response.context["progress"]
    assert (progress.left, progress.answered_last_hour) == (2, 2)
    assert "2 left in this queue" in html
    assert "you answered 2 in the last hour, about" in html and "s to go" in html


def test_a_held_out_item_is_not_left_for_an_annotator(client, annotator, curator):
    queue = QueueFactory()
    mine = ReviewItemFactory(queue=queue)
    held = ReviewItemFactory(queue=queue)
    GoldenExampleFactory(source_trace=held.trace, held_out=True)
    client.force_login(annotator)
    client.post(reverse("reviews:queue_claim", args=[queue.pk]))
    assert client.get(reverse("reviews:item_detail", args=[mine.pk])).context["progress"].left == 1
    client.force_login(curator)
    assert client.get(reverse("reviews:item_detail", args=[held.pk])).context["progress"].left == 2


def test_pace_says_how_long_what_is_left_takes():
    progress = ReviewProgress(
        left=30, left_is_lower_bound=False, answered_last_hour=5, seconds_per_item=40.0
    )
    assert progress.left_text == "30 left"
    assert progress.pace_text == "about 40 s per item, so about 20 min to go"
    capped = ReviewProgress(
        left=10_000, left_is_lower_bound=True, answered_last_hour=5, seconds_per_item=130.0
    )
    assert capped.left_text == "More than 10,000 left"
    assert capped.pace_text == "about 2 min per item"


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
