"""Submitting after the lock went to someone else is refused, and the typed text stays."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.roles import ANNOTATOR
from reviews.models import Annotation, ReviewItem
from tests.e2e.conftest import page_holding
from tests.factories import QueueFactory, ReviewItemFactory, UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

TEXT = "The agent refunded 49.90 EUR but the policy caps refunds at 30 EUR without approval."


def test_late_submission_is_refused_and_the_text_is_kept(new_page, annotator):
    queue = QueueFactory(name="Refunds")
    item = ReviewItemFactory(queue=queue)
    page = page_holding(new_page, annotator, item)
    page.keyboard.press("0")
    page.keyboard.press("e")
    page.keyboard.type(TEXT)
    # Meanwhile the lock lapsed and a colleague claimed the item
    ReviewItem.objects.filter(pk=item.pk).update(
        claimed_by=UserFactory(roles=[ANNOTATOR]),
        lock_expires_at=timezone.now() + timedelta(minutes=15),
    )
    with page.expect_navigation():
        page.keyboard.press("Control+Enter")
    assert "Not saved." in page.inner_text("#lock-error")
    assert page.input_value("#id_explanation") == TEXT
    assert page.locator("#submit-button").is_disabled()
    assert not Annotation.objects.exists()
