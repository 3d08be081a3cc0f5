"""Webhook URLs reach public addresses only: refused when saved (API and page, naming the
field) and checked again at delivery, which connects to the address it checked."""

import socket

import pytest
from django.test import Client

from webhooks import targets
from webhooks.delivery import delivery_attempt
from webhooks.events import GOLDEN_VERSION
from webhooks.models import DeliveryStatus, Webhook
from webhooks.services import event_publish, webhook_create

pytestmark = pytest.mark.django_db

PRIVATE_URLS = [
    "http://127.0.0.1:9/hook",
    "http://localhost/hook",
    "http://169.254.169.254/latest/meta-data/",
    "http://10.1.2.3/hook",
    "http://192.168.0.10:8080/hook",
    "http://100.64.0.1/hook",
    "http://[::1]/hook",
    "http://[::ffff:127.0.0.1]/hook",
    "http://[fd00:ec2::254]/hook",
    "http://0.0.0.0/hook",
]


@pytest.fixture
def public_only(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False


def _resolver(monkeypatch, *answers):
    """getaddrinfo answering each call with the next address (the last one repeats)."""
    calls = []

    def fake(host, port, *args, **kwargs):
        address = answers[min(len(calls), len(answers) - 1)]
        calls.append(host)
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        return [(family, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(targets.socket, "getaddrinfo", fake)
    return calls


@pytest.mark.parametrize("url", PRIVATE_URLS)
def test_the_api_refuses_a_private_target_naming_the_url(public_only, curator, api_client_for, url):
    response = api_client_for(curator).post(
        "/api/webhooks/", {"url": url, "events": ["gate.blocked"]}, format="json"
    )

    assert response.status_code == 400
    assert "url" in response.json()["error"]["fields"]
    assert "public addresses only" in response.content.decode()
    assert not Webhook.objects.exists()


def test_the_page_refuses_a_metadata_address_under_the_url_field(public_only, curator):
    web = Client()
    web.force_login(curator)

    response = web.post(
        "/webhooks/",
        {
            "url": "http://169.254.169.254/latest/meta-data/",
            "events": ["gate.blocked"],
            "backlog_threshold": 100,
        },
    )

    assert response.status_code == 200
    assert "public addresses only" in " ".join(response.context["form"].errors["url"])
    assert not Webhook.objects.exists()


def test_a_name_that_resolves_to_loopback_is_refused(public_only, monkeypatch):
    _resolver(monkeypatch, "127.0.0.1")

    with pytest.raises(Exception, match="public addresses only"):
        webhook_create(url="https://hooks.example.test/x", events=[GOLDEN_VERSION])


def test_a_public_address_is_accepted(public_only, curator, api_client_for):
    response = api_client_for(curator).post(
        "/api/webhooks/",
        {"url": "https://93.184.215.14/hooks", "events": ["gate.blocked"]},
        format="json",
    )

    assert response.status_code == 201


def test_a_name_rebound_to_loopback_after_saving_is_not_delivered(
    public_only, monkeypatch, receiver, django_capture_on_commit_callbacks
):
    _resolver(monkeypatch, "93.184.215.14", "127.0.0.1")
    port = receiver.url.split(":")[2].split("/")[0]
    webhook_create(url=f"http://hooks.example.test:{port}/hooks/evalsite", events=[GOLDEN_VERSION])
    with django_capture_on_commit_callbacks(execute=False):
        [delivery] = event_publish(GOLDEN_VERSION, {"name": "v1"})

    assert delivery_attempt(delivery.pk, final=False) == DeliveryStatus.FAILED

    delivery.refresh_from_db()
    assert "127.0.0.1" in delivery.error and delivery.response_code is None
    assert receiver.state.received == []


def test_delivery_connects_to_the_address_it_checked(
    public_only, monkeypatch, receiver, django_capture_on_commit_callbacks
):
    # Loopback stands in for a public address here; the name itself resolves nowhere, so a
    # delivery that looked it up again instead of using the checked address would fail.
    monkeypatch.setattr(targets, "_address_refused", lambda address: address != "127.0.0.1")
    calls = _resolver(monkeypatch, "127.0.0.1")
    port = receiver.url.split(":")[2].split("/")[0]
    webhook_create(url=f"http://hooks.example.test:{port}/hooks/evalsite", events=[GOLDEN_VERSION])
    with django_capture_on_commit_callbacks(execute=False):
        [delivery] = event_publish(GOLDEN_VERSION, {"name": "v1"})

    assert delivery_attempt(delivery.pk, final=False) == DeliveryStatus.DELIVERED

    [got] = receiver.state.received
    assert {k.lower(): v for k, v in got.headers.items()}["host"] == f"hooks.example.test:{port}"
    # The name was looked up at save and at delivery; the connection itself used the address.
    assert calls.count("hooks.example.test") == 2 and set(calls) <= {
        "hooks.example.test",
        "127.0.0.1",
    }
