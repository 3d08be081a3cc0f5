"""End-user feedback from outside: stored once per key, refused by field, routed when asked."""

import pytest
from django.test import Client

from reviews.models import ReviewItem
from tests.factories import SpanFactory, TraceFactory
from traces.models import Feedback

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(annotator, api_client_for):
    return api_client_for(annotator)


def _thumbs(client, trace, value, **fields):
    body = {"trace_id": trace.external_id, "kind": "thumbs", "value": value, **fields}
    return client.post("/api/feedback/", body, format="json")


def test_a_thumbs_down_on_a_span_is_stored_with_its_comment(client):
    span = SpanFactory(name="cancel_order")

    response = client.post(
        "/api/feedback/",
        {
            "trace_id": span.trace.external_id.upper(),
            "span_id": span.span_id,
            "kind": "thumbs",
            "value": "down",
            "comment": "It cancelled the wrong order",
            "end_user": "u-4411",
            "key": "chat-88:msg-3",
        },
        format="json",
    )

    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["value"], body["span_id"], body["name"]) == (0.0, span.span_id, "user_feedback")
    stored = Feedback.objects.get()
    assert (stored.trace, stored.span_id, stored.end_user) == (span.trace, span.span_id, "u-4411")


def test_a_retry_with_the_same_key_is_not_doubled(client):
    trace = TraceFactory()
    body = {"trace_id": trace.external_id, "kind": "number", "value": 4, "key": "k1"}

    first = client.post("/api/feedback/", body, format="json")
    again = client.post("/api/feedback/", body, format="json")

    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json()["id"] == again.json()["id"] and Feedback.objects.count() == 1


def test_without_a_key_an_identical_retry_is_still_one_row(client):
    trace = TraceFactory()
    body = {"trace_id": trace.external_id, "kind": "category", "category": "off-topic"}

    client.post("/api/feedback/", body, format="json")
    client.post("/api/feedback/", body, format="json")
    other = client.post("/api/feedback/", {**body, "category": "rude"}, format="json")

    assert other.status_code == 201 and Feedback.objects.count() == 2


def test_a_key_reused_for_different_feedback_is_a_conflict(client):
    trace = TraceFactory()
    body = {"trace_id": trace.external_id, "kind": "thumbs", "value": True, "key": "k"}
    client.post("/api/feedback/", body, format="json")

    response = client.post("/api/feedback/", {**body, "value": False}, format="json")

    assert response.status_code == 409 and "key" in response.json()["error"]["fields"]
    assert Feedback.objects.get().value == 1.0


@pytest.mark.parametrize(
    ("change", "field", "code"),
    [
        ({"kind": "stars"}, "kind", 400),
        ({"value": "meh"}, "value", 400),
        ({"kind": "number", "value": "NaN"}, "value", 400),
        ({"kind": "category", "value": None}, "category", 400),
        ({"span_id": "ffffffffffffffff"}, "span_id", 400),
        ({"trace_id": "0" * 32}, "trace_id", 404),
        ({"rating_scale": 5}, "rating_scale", 400),
        ({"metadata": ["not", "an", "object"]}, "metadata", 400),
    ],
)
def test_bad_feedback_is_refused_naming_the_field(client, change, field, code):
    trace = TraceFactory()
    body = {"trace_id": trace.external_id, "kind": "thumbs", "value": 1, **change}

    response = client.post("/api/feedback/", body, format="json")

    assert response.status_code == code
    assert response["Content-Type"] == "application/json"
    assert field in response.json()["error"]["fields"]
    assert not Feedback.objects.exists()


def test_a_thumbs_down_goes_to_review_only_where_the_project_asks(client):
    quiet = TraceFactory()
    routed = TraceFactory(project__slug="checkout", project__name="Checkout")
    routed.project.route_thumbs_down_to_review = True
    routed.project.save()

    for trace in (quiet, routed):
        _thumbs(client, trace, 0, comment="wrong")
    _thumbs(client, routed, 1, key="up")

    [item] = ReviewItem.objects.all()
    assert (item.trace, item.reason) == (routed, "user_feedback")
    assert "wrong" in item.detail


def test_feedback_is_listed_filtered_and_on_the_trace_page(client, annotator):
    trace, other = TraceFactory(), TraceFactory()
    _thumbs(client, trace, 0, comment="<b>bad</b>")
    _thumbs(client, other, 1)

    listed = client.get(f"/api/feedback/?trace_id={trace.external_id}").json()
    assert listed["count"] == 1 and listed["results"][0]["comment"] == "<b>bad</b>"
    downs = client.get("/api/traces/?feedback=thumbs_down").json()["results"]
    assert [t["id"] for t in downs] == [trace.pk]
    web = Client()
    web.force_login(annotator)
    page = web.get(f"/traces/{trace.pk}/").content.decode()
    assert "thumbs down" in page and "&lt;b&gt;bad&lt;/b&gt;" in page


def test_feedback_on_a_span_links_to_it_on_the_trace_page(client, annotator):
    span = SpanFactory(name="issue_refund")
    client.post(
        "/api/feedback/",
        {"trace_id": span.trace.external_id, "span_id": span.span_id, "kind": "number", "value": 2},
        format="json",
    )
    web = Client()
    web.force_login(annotator)

    page = web.get(f"/traces/{span.trace.pk}/").content.decode()

    assert f'href="#span-{span.span_id}">issue_refund</a>' in page


def test_feedback_is_json_only(client):
    trace = TraceFactory()

    response = client.post("/api/feedback/", {"trace_id": trace.external_id, "kind": "thumbs"})

    assert response.status_code == 415 and response["Content-Type"] == "application/json"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"comment": "bad\x00byte"}, "comment"),
        ({"key": "k\x00"}, "key"),
        ({"metadata": {"note": "a\x00b"}}, "metadata"),
        ({"trace_id": "ab\x00"}, "trace_id"),
        ({"trace_id": 2**70}, "trace_id"),
        ({"trace_id": ["not", "an", "id"]}, "trace_id"),
    ],
)
def test_values_a_database_cannot_hold_are_refused_by_name(client, change, field):
    trace = TraceFactory()
    body = {"trace_id": trace.external_id, "kind": "thumbs", "value": 1, **change}

    response = client.post("/api/feedback/", body, format="json")

    assert response.status_code in (400, 404)
    assert field in response.json()["error"]["fields"]
    assert not Feedback.objects.exists()
