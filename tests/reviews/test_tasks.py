"""The lock sweep task frees expired claims."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from reviews.tasks import review_locks_release_task
from tests.factories import ReviewItemFactory

pytestmark = pytest.mark.django_db


def test_lock_sweep_task_frees_expired_claims_and_is_scheduled(annotator):
    item = ReviewItemFactory(
        claimed_by=annotator, lock_expires_at=timezone.now() - timedelta(minutes=1)
    )
    assert review_locks_release_task() == 1
    item.refresh_from_db()
    assert item.claimed_by is None
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "reviews.tasks.review_locks_release_task" in scheduled
