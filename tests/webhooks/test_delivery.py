"""Deliveries: signed, logged with the receiver's answer, retried with backoff, then given up."""

import json
import time

import pytest

from webhooks.delivery import DeliveryRetry, delivery_attempt
from webhooks.events import GOLDEN_VERSION, TEST
from webhooks.models import DeliveryStatus, WebhookDelivery
from webhooks.services import event_publish, webhook_create, webhook_test_send
from webhooks.signing import signature_header, signature_verify
from webhooks.tasks import webhook_deliver_task

pytestmark = pytest.mark.django_db


def _published(receiver, capture, event=GOLDEN_VERSION):
    hook = webhook_create(url=receiver.url, events=[GOLDEN_VERSION])
    with capture(execute=False) as callbacks:
        [delivery] = event_publish(event, {"name": "support-v2"})
    assert len(callbacks) == 1  # sent only once the event's transaction commits
    return hook, delivery


def test_a_delivery_is_signed_over_the_exact_body_and_logged(
    receiver, django_capture_on_commit_callbacks
):
    hook, delivery = _published(receiver, django_capture_on_commit_callbacks)

    assert delivery_attempt(delivery.pk, final=False) == DeliveryStatus.DELIVERED

    [got] = receiver.state.received
    headers = {k.lower(): v for k, v in got.headers.items()}
    assert signature_verify(
        hook.secret, headers["x-evalsite-signature"], got.body, int(time.time())
    )
    assert not signature_verify("whsec_other", headers["x-evalsite-signature"], got.body, 0)
    assert headers["x-evalsite-event"] == GOLDEN_VERSION
    assert headers["x-evalsite-delivery"] == str(delivery.pk)
    body = json.loads(got.body)
    assert (body["event"], body["data"], body["id"]) == (
        GOLDEN_VERSION,
        {"name": "support-v2"},
        delivery.pk,
    )
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.response_code) == ("delivered", 1, 200)
    assert delivery.delivered_at is not None


def test_a_server_error_is_retried_and_the_next_attempt_delivers(
    receiver, django_capture_on_commit_callbacks
):
    receiver.state.statuses = [503]
    _, delivery = _published(receiver, django_capture_on_commit_callbacks)

    with pytest.raises(DeliveryRetry):
        delivery_attempt(delivery.pk, final=False)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.response_code) == ("pending", 1, 503)

    assert delivery_attempt(delivery.pk, final=False) == DeliveryStatus.DELIVERED
    delivery.refresh_from_db()
    assert (delivery.attempts, delivery.response_code) == (2, 200)
    # A retry is the same delivery: same id, same payload.
    first, second = (json.loads(r.body) for r in receiver.state.received)
    assert first == second


def test_a_refusal_is_not_retried(receiver, django_capture_on_commit_callbacks):
    receiver.state.statuses = [410]
    _, delivery = _published(receiver, django_capture_on_commit_callbacks)

    assert delivery_attempt(delivery.pk, final=False) == DeliveryStatus.FAILED
    delivery.refresh_from_db()
    assert (delivery.response_code, delivery.attempts) == (410, 1)


def test_an_unreachable_receiver_is_retried_with_the_error_logged(
    receiver, django_capture_on_commit_callbacks
):
    _, delivery = _published(receiver, django_capture_on_commit_callbacks)
    receiver.stop()

    with pytest.raises(DeliveryRetry):
        delivery_attempt(delivery.pk, final=False)
    delivery.refresh_from_db()
    assert delivery.response_code is None and "ConnectError" in delivery.error


def test_the_task_retries_until_delivered(receiver, django_capture_on_commit_callbacks):
    receiver.state.statuses = [500, 429]
    _, delivery = _published(receiver, django_capture_on_commit_callbacks)

    # Eager: Celery runs each retry at once instead of after its backoff.
    result = webhook_deliver_task.apply(args=[delivery.pk])

    assert result.get() == DeliveryStatus.DELIVERED
    delivery.refresh_from_db()
    assert delivery.attempts == 3 and len(receiver.state.received) == 3


def test_the_task_gives_up_after_the_last_attempt(
    settings, receiver, django_capture_on_commit_callbacks
):
    receiver.state.statuses = [502] * 20
    _, delivery = _published(receiver, django_capture_on_commit_callbacks)

    assert webhook_deliver_task.apply(args=[delivery.pk]).get() == DeliveryStatus.FAILED

    delivery.refresh_from_db()
    assert (
        delivery.attempts == settings.WEBHOOK_MAX_ATTEMPTS == webhook_deliver_task.max_retries + 1
    )
    assert delivery.response_code == 502


def test_only_active_subscribers_get_an_event(receiver, django_capture_on_commit_callbacks):
    webhook_create(url=receiver.url, events=[GOLDEN_VERSION])
    paused = webhook_create(url=receiver.url + "/paused", events=[GOLDEN_VERSION])
    paused.active = False
    paused.save()
    webhook_create(url=receiver.url + "/other", events=["gate.blocked"])

    with django_capture_on_commit_callbacks(execute=False):
        deliveries = event_publish(GOLDEN_VERSION, {"name": "v3"})

    assert [d.webhook.url for d in deliveries] == [receiver.url]


def test_a_test_event_is_a_logged_signed_delivery(receiver, django_capture_on_commit_callbacks):
    hook = webhook_create(url=receiver.url, events=[GOLDEN_VERSION])
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        delivery = webhook_test_send(hook)
    assert len(callbacks) == 1

    webhook_deliver_task.apply(args=[delivery.pk])
    delivery.refresh_from_db()
    assert (delivery.event, delivery.status) == (TEST, "delivered")
    assert WebhookDelivery.objects.count() == 1


def test_a_stale_or_tampered_signature_fails_verification():
    body = b'{"event":"webhook.test"}'
    header = signature_header("whsec_x", 1_000_000, body)
    assert signature_verify("whsec_x", header, body, now=1_000_100)
    assert not signature_verify("whsec_x", header, body + b" ", now=1_000_100)
    assert not signature_verify("whsec_x", header, body, now=1_000_000 + 301)
    assert not signature_verify("whsec_x", "garbage", body, now=1_000_000)
