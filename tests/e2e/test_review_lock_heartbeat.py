"""The open item page renews its lock, and says so at once when the lock is gone."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.roles import ANNOTATOR
from reviews.models import ReviewItem
from tests.e2e.conftest import page_holding
from tests.factories import QueueFactory, ReviewItemFactory, UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_heartbeat_renews_the_lock_and_reports_losing_it(new_page, annotator, settings):
    settings.REVIEW_HEARTBEAT_SECONDS = 1
    queue = QueueFactory(name="Support")
    item = ReviewItemFactory(queue=queue)
    page = page_holding(new_page, annotator, item)
    # Given the lock is about to run out
    ReviewItem.objects.filter(pk=item.pk).update(
        lock_expires_at=timezone.now() + timedelta(seconds=20)
    )
    # When the page stays open, the heartbeat pushes it back to 15 minutes
    page.wait_for_timeout(2500)
    remaining = ReviewItem.objects.get(pk=item.pk).lock_expires_at - timezone.now()
    assert remaining > timedelta(minutes=14)
    # And when a colleague takes the item after expiry, the page says the lock is gone
    ReviewItem.objects.filter(pk=item.pk).update(
        claimed_by=UserFactory(roles=[ANNOTATOR]),
        lock_expires_at=timezone.now() + timedelta(minutes=15),
    )
    page.locator("#lock-info.error").wait_for(timeout=10_000)
    assert "another reviewer has it" in page.inner_text("#lock-info")
