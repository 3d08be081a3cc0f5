"""One trace carried through every stage on the real stack: API ingest, two judge passes in a
worker process, a dispute in the queue, an annotator's resolution, a curator's promotion, and the
golden dataset's list and JSONL export."""

import json

import pytest
from django.urls import reverse

from judges.models import Judgment, Rubric, Verdict, VerdictStatus
from reviews.models import ReviewItem, ReviewStatus
from tests.factories import UserFactory
from tests.integration.conftest import wait_for
from traces.models import Trace

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
SPAN_TREE = {
    "trace_id": TRACE_ID,
    "name": "invoke_agent support-agent",
    "type": "agent",
    "input": "I'm customer C-6634. Cancel my latest order, it was a duplicate.",
    "output": "Your order B-20991 has been cancelled and refunded.",
    "available_tools": [{"name": "get_recent_orders"}, {"name": "cancel_order"}],
    "children": [
        {
            "name": "chat claude-sonnet-4-5",
            "type": "llm",
            "input": "plan",
            "output": "Look up the orders first.",
        },
        {
            "name": "get_recent_orders",
            "type": "tool",
            "input": {"customer_id": "C-6634"},
            "output": {"orders": [{"order_id": "B-20991", "status": "processing"}]},
        },
        {
            "name": "cancel_order",
            "type": "tool",
            "input": {"order_id": "B-20991"},
            "output": {"order_id": "B-20991", "status": "cancelled"},
        },
    ],
}


def test_one_trace_end_to_end(celery_worker, simulated_judge, api_client_for, client):
    agent = api_client_for(UserFactory(username="ci-bot", roles=["curator"]))
    annotator = UserFactory(username="annie", roles=["annotator"])
    curator = UserFactory(username="cora", roles=["curator"])
    # Every second identical call answers with the other score: the passes must disagree.
    simulated_judge.set(flip_rate=1.0)

    # Given a span tree sent to the API
    response = agent.post("/api/traces/", SPAN_TREE, format="json")
    assert response.status_code == 201, response.content
    trace = Trace.objects.get(external_id=TRACE_ID)
    assert trace.spans.count() == 4
    assert trace.task.startswith("I'm customer C-6634")

    # When a judge run with the seed tool-call rubric is started
    version = Rubric.objects.get(name="Tool-call decision accuracy").latest_version()
    response = agent.post(
        "/api/judge-runs/", {"rubric_version": version.pk, "trace_ids": [trace.pk]}, format="json"
    )
    assert response.status_code == 201, response.content

    # Then the worker runs two passes at temperature 0 and the disagreement is queued
    verdict = wait_for(
        lambda: Verdict.objects.filter(trace=trace).first(),
        timeout=90,
        message=celery_worker.log_tail(),
    )
    passes = Judgment.objects.filter(trace=trace).order_by("pass_index")
    assert [j.pass_index for j in passes] == [0, 1]
    assert {j.score for j in passes} == {0.0, 1.0}
    assert passes[0].config.temperature == 0
    assert verdict.status == VerdictStatus.DISPUTED
    item = ReviewItem.objects.get(trace=trace, reason="passes_disagree")

    client.force_login(annotator)
    queue_page = client.get(reverse("reviews:queue_detail", args=[item.queue_id]))
    assert "Cancel my latest order" in queue_page.content.decode()

    # When the annotator claims and resolves it
    annotator_api = api_client_for(annotator)
    claimed = annotator_api.post(f"/api/reviews/queues/{item.queue_id}/claim/").json()["item"]
    assert claimed["id"] == item.pk
    resolved = annotator_api.post(
        f"/api/reviews/items/{item.pk}/resolve/",
        {"score": 1, "explanation": "Looked the order up, then cancelled the right one."},
        format="json",
    )
    assert resolved.status_code == 201, resolved.content
    item.refresh_from_db()
    assert item.status == ReviewStatus.RESOLVED and item.resolved_score == 1

    # And a curator promotes it to the golden dataset
    curator_api = api_client_for(curator)
    promoted = curator_api.post("/api/golden/examples/promote/", {"item": item.pk}, format="json")
    assert promoted.status_code == 201, promoted.content
    example_id = promoted.json()["id"]

    # Then the golden list shows it, and a dataset version exports it as JSONL
    client.force_login(curator)
    assert "Cancel my latest order" in client.get(reverse("golden:example_list")).content.decode()
    version_response = curator_api.post("/api/golden/versions/", {"name": "v1"}, format="json")
    assert version_response.status_code == 201, version_response.content
    export = client.get(f"/api/golden/versions/{version_response.json()['id']}/export/")
    assert export.status_code == 200
    lines = [json.loads(line) for line in b"".join(export.streaming_content).splitlines() if line]
    exported = [line for line in lines if line.get("task", "").startswith("I'm customer C-6634")]
    assert len(exported) == 1
    assert [step["tool"] for step in exported[0]["reference_trajectory"]] == [
        "get_recent_orders",
        "cancel_order",
    ]
    assert example_id
