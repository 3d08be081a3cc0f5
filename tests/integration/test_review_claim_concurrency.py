"""Many annotators claim from one queue at the same moment on the real database."""

import pytest
from django.db import connection

from accounts.roles import ANNOTATOR
from reviews.claims import review_item_claim_next
from reviews.models import ReviewItem
from tests.factories import QueueFactory, ReviewItemFactory, UserFactory
from tests.integration.conftest import at_the_same_moment

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

PEOPLE = 8


def test_simultaneous_claims_hand_out_distinct_items():
    queue = QueueFactory(name="Support")
    ReviewItemFactory.create_batch(PEOPLE - 2, queue=queue)  # fewer items than people
    people = [UserFactory(username=f"reviewer{i}", roles=[ANNOTATOR]) for i in range(PEOPLE)]
    claimed: dict[str, int | None] = {}

    def claim(person):
        item = review_item_claim_next(user=person, queue=queue)
        claimed[person.username] = item.pk if item else None

    assert at_the_same_moment(claim, people) == []
    taken = [pk for pk in claimed.values() if pk is not None]
    # Every item went to exactly one person, and two people found nothing left
    assert len(taken) == len(set(taken)) == PEOPLE - 2
    assert list(claimed.values()).count(None) == 2
    holders = dict(ReviewItem.objects.values_list("pk", "claimed_by__username"))
    assert all(holders[pk] == name for name, pk in claimed.items() if pk)
    assert connection.vendor in ("postgresql", "sqlite")
