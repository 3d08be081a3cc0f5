"""Review API per role: claim, resolve (and its JSON errors), adjudicate, undo, flag a trace."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.roles import ANNOTATOR
from reviews.models import Annotation, ReviewReason, ReviewStatus
from tests.factories import QueueFactory, ReviewItemFactory, TraceFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_claim_then_resolve_through_the_api(api_client_for, annotator):
    queue = QueueFactory()
    item = ReviewItemFactory(queue=queue)
    api = api_client_for(annotator)
    claimed = api.post(f"/api/reviews/queues/{queue.pk}/claim/")
    assert claimed.status_code == 200
    assert claimed.json()["item"]["id"] == item.pk
    assert claimed.json()["item"]["claimed_by"] == "annie"
    response = api.post(
        f"/api/reviews/items/{item.pk}/resolve/",
        {"score": 1, "explanation": "Looked up then cancelled.", "failure_tags": []},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["score"] == 1
    item.refresh_from_db()
    assert item.status == ReviewStatus.RESOLVED
    # Nothing is left
    assert api.post(f"/api/reviews/queues/{queue.pk}/claim/").json() == {"item": None}


def test_resolve_errors_are_json_with_a_field(api_client_for, annotator):
    queue = QueueFactory()
    item = ReviewItemFactory(queue=queue)
    api = api_client_for(annotator)
    api.post(f"/api/reviews/queues/{queue.pk}/claim/")
    url = f"/api/reviews/items/{item.pk}/resolve/"
    missing = api.post(url, {}, format="json")
    assert missing.status_code == 400
    assert "score" in missing.json()["error"]["fields"]
    out_of_range = api.post(url, {"score": 3}, format="json")
    assert out_of_range.status_code == 400
    assert out_of_range.json()["error"]["fields"] == {
        "score": ["The score must be between 0 and 1 for this rubric."]
    }
    item.lock_expires_at = timezone.now() - timedelta(seconds=1)
    item.save(update_fields=["lock_expires_at"])
    lost = api.post(url, {"score": 1}, format="json")
    assert lost.status_code == 409
    assert lost.json()["error"]["code"] == "lock_lost"
    assert "item" in lost.json()["error"]["fields"]
    assert not Annotation.objects.exists()


@pytest.mark.parametrize(
    ("persona", "claim", "adjudicate"),
    [
        ("outsider", 403, 403),
        ("annotator", 200, 403),
        ("curator", 200, 201),
        ("admin_user", 200, 201),
    ],
)
def test_roles_on_claim_and_adjudicate(api_client_for, request, persona, claim, adjudicate):
    queue = QueueFactory()
    item = ReviewItemFactory(queue=queue, needs_curator=True)
    ReviewItemFactory(queue=queue)
    api = api_client_for(request.getfixturevalue(persona))
    assert api.post(f"/api/reviews/queues/{queue.pk}/claim/").status_code == claim
    response = api.post(f"/api/reviews/items/{item.pk}/adjudicate/", {"score": 0}, format="json")
    assert response.status_code == adjudicate
    assert "error" in response.json() or response.json()["is_adjudication"]


def test_unauthenticated_calls_are_refused(client):
    queue = QueueFactory()
    response = client.post(f"/api/reviews/queues/{queue.pk}/claim/")
    assert response.status_code in (401, 403)
    assert "error" in response.json()


def test_undo_skip_and_heartbeat(api_client_for, annotator):
    queue = QueueFactory()
    first, second = ReviewItemFactory(queue=queue), ReviewItemFactory(queue=queue)
    api = api_client_for(annotator)
    api.post(f"/api/reviews/queues/{queue.pk}/claim/")
    assert api.post(f"/api/reviews/items/{first.pk}/heartbeat/").status_code == 200
    annotation_id = api.post(
        f"/api/reviews/items/{first.pk}/resolve/", {"score": 0}, format="json"
    ).json()["id"]
    undone = api.post(f"/api/reviews/annotations/{annotation_id}/undo/")
    assert undone.status_code == 200
    assert undone.json()["status"] == "open"
    assert api.post(f"/api/reviews/items/{first.pk}/skip/").json()["claimed_by"] is None
    assert api.post(f"/api/reviews/queues/{queue.pk}/claim/").json()["item"]["id"] == second.pk
    # Someone else's answer cannot be undone
    other = api_client_for(UserFactory(roles=[ANNOTATOR]))
    assert other.post(f"/api/reviews/annotations/{annotation_id}/undo/").status_code == 404


def test_flag_a_trace_queues_it_once(api_client_for, annotator):
    trace = TraceFactory()
    api = api_client_for(annotator)
    first = api.post("/api/reviews/flags/", {"trace_id": trace.pk, "note": "Odd"}, format="json")
    again = api.post("/api/reviews/flags/", {"trace_id": trace.pk}, format="json")
    assert first.status_code == 201
    assert first.json()["reason"] == ReviewReason.FLAGGED
    assert again.json()["id"] == first.json()["id"]
    missing = api.post("/api/reviews/flags/", {"trace_id": 999999}, format="json")
    assert missing.status_code == 404


def test_schema_lists_the_review_endpoints(client, annotator):
    client.force_login(annotator)
    schema = client.get("/api/schema/").content.decode()
    assert "/api/reviews/items/{item_id}/resolve/" in schema


def test_queue_items_are_listed_with_the_page_filters(api_client_for, annotator, outsider):
    queue = QueueFactory()
    flagged = ReviewItemFactory(queue=queue, reason=ReviewReason.RED_FLAG)
    ReviewItemFactory(queue=queue)
    ReviewItemFactory(queue=queue, status=ReviewStatus.CLOSED)
    api = api_client_for(annotator)
    url = f"/api/reviews/queues/{queue.pk}/items/"
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    api.get(url)  # the token records its first use once
    with CaptureQueriesContext(connection) as few:
        everything_open = api.get(url).json()
    assert everything_open["count"] == 2
    for _ in range(5):  # five holders: a person holds one item per queue
        ReviewItemFactory(queue=queue, claimed_by=UserFactory(roles=[ANNOTATOR]))
    with CaptureQueriesContext(connection) as many:
        assert api.get(url).json()["count"] == 7
    assert len(many) == len(few)
    red = api.get(url, {"reason": "red_flag"}).json()
    assert [row["id"] for row in red["results"]] == [flagged.pk]
    bad = api.get(url, {"status": "nonsense"})
    assert bad.status_code == 400
    assert "status" in bad.json()["error"]["fields"]
    assert api_client_for(outsider).get(url).status_code == 403
