"""Webhook deliveries with retries and exponential backoff, and the backlog watch."""

from celery import shared_task
from django.conf import settings
from django.db import transaction

from reviews.models import ReviewItem, ReviewStatus
from webhooks.delivery import DeliveryRetry, delivery_attempt
from webhooks.events import REVIEW_BACKLOG
from webhooks.models import Webhook
from webhooks.services import delivery_enqueue


@shared_task(
    bind=True,
    autoretry_for=(DeliveryRetry,),
    retry_backoff=settings.WEBHOOK_RETRY_BASE_SECONDS,
    retry_backoff_max=settings.WEBHOOK_RETRY_MAX_SECONDS,
    retry_jitter=True,
    max_retries=settings.WEBHOOK_MAX_ATTEMPTS - 1,
)
def webhook_deliver_task(self, delivery_id: int) -> str:
    return delivery_attempt(delivery_id, final=self.request.retries >= self.max_retries)


@shared_task
def review_backlog_check_task() -> int:
    """Fire the backlog event once each time open review items cross a webhook's threshold."""
    open_items = ReviewItem.objects.filter(status=ReviewStatus.OPEN).count()
    fired = 0
    watching = Webhook.objects.filter(active=True).order_by("pk")
    for hook in watching:
        if REVIEW_BACKLOG not in (hook.events or []):
            continue
        over = open_items > hook.backlog_threshold
        if over == hook.backlog_alerted:
            continue
        with transaction.atomic():
            # Conditional: two beat ticks racing fire once.
            changed = Webhook.objects.filter(pk=hook.pk, backlog_alerted=not over).update(
                backlog_alerted=over
            )
            if changed and over:
                delivery_enqueue(
                    hook,
                    REVIEW_BACKLOG,
                    {"open_items": open_items, "threshold": hook.backlog_threshold},
                )
                fired += 1
    return fired
