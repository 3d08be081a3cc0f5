"""One attempt at delivering a webhook: a signed POST, and its answer recorded on the delivery."""

import json
import time

import httpx
from django.conf import settings
from django.utils import timezone

from webhooks.models import DeliveryStatus, WebhookDelivery
from webhooks.signing import SIGNATURE_HEADER, signature_header
from webhooks.targets import TargetRefused, target_resolve

# Worth another try later: the receiver is down, overloaded or asks us to slow down.
RETRYABLE_STATUSES = {408, 425, 429}


class DeliveryRetry(Exception):
    """The attempt failed in a way a later attempt may not."""


def delivery_attempt(delivery_id: int, *, final: bool) -> str:
    """POST the stored payload. Returns the delivery's status; raises DeliveryRetry to retry.

    On the final attempt a retryable failure marks the delivery failed instead of raising."""
    delivery = WebhookDelivery.objects.select_related("webhook").filter(pk=delivery_id).first()
    if delivery is None or delivery.status != DeliveryStatus.PENDING:
        return delivery.status if delivery else "missing"
    body = json.dumps(delivery.payload, sort_keys=True, separators=(",", ":")).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "evalsite-webhooks",
        "X-Evalsite-Event": delivery.event,
        "X-Evalsite-Delivery": str(delivery.pk),
        SIGNATURE_HEADER: signature_header(delivery.webhook.secret, int(time.time()), body),
    }
    code, excerpt, error, refused = None, "", "", False
    try:
        # Resolved and checked now, not only when saved: the name may point elsewhere today.
        target = target_resolve(delivery.webhook.url)
        hostname = target.host.rsplit(":", 1)[0].strip("[]")
        # trust_env off when pinned: a proxy from the environment would resolve the name again.
        with httpx.Client(trust_env=not target.pinned, follow_redirects=False) as client:
            response = client.post(
                target.url,
                content=body,
                headers={**headers, "Host": target.host} if target.pinned else headers,
                timeout=settings.WEBHOOK_TIMEOUT_SECONDS,
                # TLS checks the certificate against the name while connecting to the address.
                extensions={"sni_hostname": hostname} if target.pinned else None,
            )
        code, excerpt = response.status_code, response.text[:500]
    except TargetRefused as exc:
        error, refused = str(exc)[:500], True
    except httpx.HTTPError as exc:
        error = f"{type(exc).__name__}: {exc}"[:500]
    delivered = code is not None and 200 <= code < 300
    retryable = not refused and (code is None or code >= 500 or code in RETRYABLE_STATUSES)
    status = DeliveryStatus.DELIVERED if delivered else DeliveryStatus.PENDING
    if not delivered and (final or not retryable):
        status = DeliveryStatus.FAILED
    now = timezone.now()
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        attempts=delivery.attempts + 1,
        response_code=code,
        response_excerpt=excerpt,
        error=error,
        status=status,
        last_attempt_at=now,
        delivered_at=now if delivered else None,
    )
    if status == DeliveryStatus.PENDING:
        raise DeliveryRetry(error or f"HTTP {code}")
    return status
