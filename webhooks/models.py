import secrets

from django.db import models

from core.created_by import CreatedBy
from webhooks.events import EVENT_CHOICES


def new_secret() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


class Webhook(CreatedBy):
    url = models.URLField(max_length=2000)
    events = models.JSONField(default=list, help_text="Event names this URL receives.")
    secret = models.CharField(max_length=100, default=new_secret, editable=False)
    active = models.BooleanField(default=True)
    backlog_threshold = models.PositiveIntegerField(
        default=100, help_text="Open review items above which the backlog event fires."
    )
    # Set while the backlog is over the threshold, so the event fires once per crossing.
    backlog_alerted = models.BooleanField(default=False, editable=False)

    def __str__(self) -> str:
        return self.url

    def event_labels(self) -> list[str]:
        labels = dict(EVENT_CHOICES)
        return [labels.get(name, name) for name in self.events]


class DeliveryStatus(models.TextChoices):
    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"


class WebhookDelivery(models.Model):
    """One event sent to one URL: the payload as signed, and what the receiver answered."""

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=60)
    payload = models.JSONField()
    status = models.CharField(
        max_length=20, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    response_code = models.PositiveSmallIntegerField(null=True, blank=True)
    response_excerpt = models.CharField(max_length=500, blank=True)
    error = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["webhook", "-created_at"], name="delivery_webhook_recent")]

    def __str__(self) -> str:
        return f"{self.event} → {self.webhook.url}"
