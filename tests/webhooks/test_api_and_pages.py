"""Curators manage webhooks over the API and on the page; nobody else sees them."""

import pytest
from django.test import Client

from webhooks.models import Webhook, WebhookDelivery
from webhooks.tasks import webhook_deliver_task

pytestmark = pytest.mark.django_db


def test_a_curator_registers_a_webhook_and_reads_its_secret(curator, api_client_for):
    client = api_client_for(curator)

    response = client.post(
        "/api/webhooks/",
        {"url": "https://ops.example.com/evalsite", "events": ["gate.blocked"]},
        format="json",
    )

    assert response.status_code == 201
    body = response.json()
    assert body["secret"].startswith("whsec_") and body["events"] == ["gate.blocked"]
    assert client.get(f"/api/webhooks/{body['id']}/").json()["url"].endswith("/evalsite")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": "https://x.example", "events": ["gate.exploded"]}, "events"),
        ({"url": "https://x.example", "events": []}, "events"),
        ({"url": "ftp://x.example", "events": ["gate.blocked"]}, "url"),
        ({"events": ["gate.blocked"]}, "url"),
        ({"url": "https://x.example/\x00", "events": ["gate.blocked"]}, "url"),
    ],
)
def test_bad_input_is_refused_naming_the_field(curator, api_client_for, body, field):
    response = api_client_for(curator).post("/api/webhooks/", body, format="json")

    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert field in response.content.decode()
    assert not Webhook.objects.exists()


def test_annotators_cannot_see_or_register_webhooks(annotator, api_client_for):
    client = api_client_for(annotator)
    assert client.get("/api/webhooks/").status_code == 403
    assert client.post("/api/webhooks/", {}, format="json").status_code == 403
    web = Client()
    web.force_login(annotator)
    assert web.get("/webhooks/").status_code == 403


def test_the_api_sends_a_test_event_and_pages_the_delivery_log(
    curator, api_client_for, django_capture_on_commit_callbacks
):
    client = api_client_for(curator)
    hook = client.post(
        "/api/webhooks/",
        {"url": "http://127.0.0.1:9/closed", "events": ["golden.version_created"]},
        format="json",
    ).json()

    with django_capture_on_commit_callbacks(execute=False):
        sent = client.post(f"/api/webhooks/{hook['id']}/test/")
        client.post(f"/api/webhooks/{hook['id']}/test/")

    assert sent.status_code == 202 and sent.json()["event"] == "webhook.test"
    page = client.get(f"/api/webhooks/{hook['id']}/deliveries/?limit=1").json()
    assert page["count"] == 2 and len(page["results"]) == 1
    too_many = client.get(f"/api/webhooks/{hook['id']}/deliveries/?limit=9999")
    assert too_many.status_code == 400 and "limit" in too_many.json()["error"]["fields"]


def test_pausing_over_the_api_stops_events(curator, api_client_for):
    client = api_client_for(curator)
    hook = client.post(
        "/api/webhooks/", {"url": "https://x.example", "events": ["gate.blocked"]}, format="json"
    ).json()

    changed = client.patch(f"/api/webhooks/{hook['id']}/", {"active": False}, format="json")

    assert changed.status_code == 200 and changed.json()["active"] is False
    assert client.delete(f"/api/webhooks/{hook['id']}/").status_code == 204
    assert not Webhook.objects.exists()


def test_a_curator_registers_on_the_page_and_sends_a_test_event(
    curator, receiver, django_capture_on_commit_callbacks
):
    web = Client()
    web.force_login(curator)

    created = web.post(
        "/webhooks/",
        {
            "url": receiver.url,
            "events": ["review.backlog_over_threshold"],
            "backlog_threshold": "25",
        },
    )
    hook = Webhook.objects.get()
    assert created["Location"] == f"/webhooks/{hook.pk}/"
    with django_capture_on_commit_callbacks(execute=False):
        web.post(f"/webhooks/{hook.pk}/test/")
    webhook_deliver_task.apply(args=[WebhookDelivery.objects.get().pk])

    page = web.get(f"/webhooks/{hook.pk}/").content.decode()
    assert hook.secret in page and "webhook.test" in page and ">200<" in page.replace(" ", "")
    assert "Delivered" in page and hook.backlog_threshold == 25


def test_the_page_refuses_a_url_without_a_scheme_it_can_post_to(curator):
    web = Client()
    web.force_login(curator)

    body = web.post(
        "/webhooks/",
        {"url": "mailto:x@example.com", "events": ["gate.blocked"], "backlog_threshold": "1"},
    ).content.decode()

    assert "Enter a valid URL" in body or "must be http" in body
    assert not Webhook.objects.exists()


def test_the_list_shows_each_webhooks_latest_delivery_in_constant_queries(
    curator, django_assert_max_num_queries
):
    from webhooks.services import webhook_create

    for index in range(5):
        hook = webhook_create(url=f"https://x{index}.example", events=["gate.blocked"])
        WebhookDelivery.objects.create(webhook=hook, event="webhook.test", payload={})
        WebhookDelivery.objects.create(
            webhook=hook, event="webhook.test", payload={}, status="delivered", response_code=204
        )
    web = Client()
    web.force_login(curator)

    with django_assert_max_num_queries(12):
        page = web.get("/webhooks/").content.decode()

    assert page.count("Delivered (204)") == 5
