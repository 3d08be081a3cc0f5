"""Writes for webhooks: register, change, remove, and publish an event to its subscribers."""

import json
from urllib.parse import urlsplit

from django.db import transaction
from django.utils import timezone

from core.errors import ApplicationError
from webhooks.events import SUBSCRIBABLE, TEST
from webhooks.models import Webhook, WebhookDelivery
from webhooks.targets import TargetRefused, target_resolve


def _validated(url: str, events, *, check_target: bool = True) -> tuple[str, list[str]]:
    url = (url or "").strip()
    parts = urlsplit(url)
    if "\x00" in url or parts.scheme not in ("http", "https") or not parts.netloc:
        raise ApplicationError("The URL must be http:// or https:// with a host.", field="url")
    try:
        if check_target:
            target_resolve(url)
    except TargetRefused as exc:
        raise ApplicationError(str(exc), field="url") from exc
    if not isinstance(events, list) or not events:
        raise ApplicationError("Subscribe to at least one event.", field="events")
    unknown = [e for e in events if e not in SUBSCRIBABLE]
    if unknown:
        raise ApplicationError(
            f"Unknown event {unknown[0]!r}; events are {', '.join(SUBSCRIBABLE)}.", field="events"
        )
    return url, sorted(set(events))


def webhook_create(*, url: str, events: list, backlog_threshold: int = 100, user=None) -> Webhook:
    url, events = _validated(url, events)
    return Webhook.objects.create(
        url=url,
        events=events,
        backlog_threshold=backlog_threshold,
        created_by=user if user is not None and user.is_authenticated else None,
    )


def webhook_update(webhook: Webhook, **changes) -> Webhook:
    url = changes.get("url", webhook.url)
    # Pausing a webhook does not resolve its host again; a new URL is checked (and every send).
    url, events = _validated(
        url, changes.get("events", webhook.events), check_target=url != webhook.url
    )
    webhook.url, webhook.events = url, events
    for name in ("active", "backlog_threshold"):
        if name in changes:
            setattr(webhook, name, changes[name])
    webhook.save()
    return webhook


def _body(delivery_id: int, event: str, data: dict) -> dict:
    return {
        "id": delivery_id,
        "event": event,
        "created_at": timezone.now().isoformat(),
        "data": data,
    }


def delivery_enqueue(webhook: Webhook, event: str, data: dict) -> WebhookDelivery:
    """Store the delivery with its final payload, then send it once the transaction commits."""
    from webhooks.tasks import webhook_deliver_task

    # Round-trip through JSON so the stored payload is exactly what gets signed and sent.
    data = json.loads(json.dumps(data, default=str))
    with transaction.atomic():
        delivery = WebhookDelivery.objects.create(webhook=webhook, event=event, payload={})
        delivery.payload = _body(delivery.pk, event, data)
        delivery.save(update_fields=["payload"])
    transaction.on_commit(lambda: webhook_deliver_task.delay(delivery.pk))
    return delivery


def event_publish(event: str, data: dict) -> list[WebhookDelivery]:
    """One delivery per active webhook subscribed to the event."""
    subscribed = [
        hook for hook in Webhook.objects.filter(active=True) if event in (hook.events or [])
    ]
    return [delivery_enqueue(hook, event, data) for hook in subscribed]


def webhook_test_send(webhook: Webhook) -> WebhookDelivery:
    """The "send test event" button: a signed delivery like any other, logged the same way."""
    return delivery_enqueue(webhook, TEST, {"message": "A test event from evalsite."})
