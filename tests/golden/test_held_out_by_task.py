"""Held-out is a property of the task: a trace tagged with a held-out example's key (an eval
trial, as the CI workflow tags them), or asking a held-out example's task, is held out from
the moment it is stored, and as soon as an example becomes held out later."""

import json

import pytest

from golden.services import golden_example_update
from reviews.claims import review_item_claim_next
from tests.factories import GoldenExampleFactory, ReviewItemFactory
from traces.ingest.services import ingest_otlp, ingest_span_tree
from traces.models import Project, Trace
from traces.search.documents import search_documents_build

pytestmark = pytest.mark.django_db

KEY = "zanzibar-retreat"
TASK = "Book the Zanzibar board retreat for 14 people, budget EUR 9417."


def _tree(trace_id: str, *, context=None, attributes=None, task="Plan a team offsite."):
    return {
        "trace_id": trace_id,
        "name": "invoke_agent planner",
        "type": "agent",
        "input": task,
        "output": "Booked the Baraza resort, confirmation ZNZ-5521.",
        "start_time": "2026-11-20T10:00:00Z",
        "end_time": "2026-11-20T10:00:06Z",
        "attributes": attributes or {},
        "context": context or {},
        "children": [],
    }


def _project():
    return Project.objects.get_or_create(slug="default", defaults={"name": "Default"})[0]


def _ingest(trace_id: str, **kwargs) -> Trace:
    ingest_span_tree(_project(), _tree(trace_id, **kwargs))
    return Trace.objects.get(external_id=trace_id)


def _visible_ids(client, path: str) -> set[int]:
    answer = client.get(path)
    assert answer.status_code == 200
    if path.startswith("/api/export/"):
        body = b"".join(answer.streaming_content).decode()
        return {json.loads(line)["id"] for line in body.splitlines() if line}
    return {row["id"] for row in answer.json()["results"]}


def test_a_trial_tagged_with_a_held_out_key_is_held_out_at_ingest_everywhere(
    api_client_for, annotator, curator
):
    GoldenExampleFactory(key=KEY, task=TASK, held_out=True)
    trial = _ingest("a1" * 16, context={"evalsite.example_key": KEY})
    other = _ingest("b2" * 16, context={"evalsite.example_key": "some-open-example"})

    search_documents_build([trial.pk, other.pk])

    assert Trace.objects.get(pk=trial.pk).held_out is True
    annie = api_client_for(annotator)
    for path in ("/api/traces/", "/api/traces/?search=Baraza", "/api/export/traces/?format=jsonl"):
        assert _visible_ids(annie, path) == {other.pk}, path
    assert annie.get(f"/api/traces/{trial.pk}/").status_code == 404
    csv_body = b"".join(annie.get("/api/export/traces/?format=csv").streaming_content)
    assert b"Baraza" in csv_body  # the open trace's answer
    assert csv_body.count(b"Baraza") == 1
    assert trial.pk in _visible_ids(api_client_for(curator), "/api/traces/")


def test_a_key_on_the_root_span_or_the_otlp_resource_holds_the_trial_out():
    GoldenExampleFactory(key=KEY, task=TASK, held_out=True)
    on_root = _ingest("c3" * 16, attributes={"evalsite.example_key": KEY})
    body = {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": [
                        {"key": "evalsite.example_key", "value": {"stringValue": KEY}},
                    ]
                },
                "scopeSpans": [
                    {
                        "spans": [
                            {
                                "traceId": "d4" * 16,
                                "spanId": "e5" * 8,
                                "name": "invoke_agent planner",
                                "startTimeUnixNano": "1763632800000000000",
                                "endTimeUnixNano": "1763632806000000000",
                            }
                        ]
                    }
                ],
            }
        ]
    }
    ingest_otlp(body=json.dumps(body).encode(), content_type="application/json")

    assert Trace.objects.get(pk=on_root.pk).held_out is True
    assert Trace.objects.get(external_id="d4" * 16).held_out is True


def test_a_trace_asking_a_held_out_task_is_held_out_without_a_tag():
    GoldenExampleFactory(key=KEY, task=TASK, held_out=True)

    same_task = _ingest("f6" * 16, task=TASK)
    other_task = _ingest("a7" * 16, task="Book a table for two.")

    assert Trace.objects.get(pk=same_task.pk).held_out is True
    assert Trace.objects.get(pk=other_task.pk).held_out is False


def test_an_example_held_out_later_holds_out_its_trials_and_releasing_it_shows_them(curator):
    example = GoldenExampleFactory(key=KEY, task=TASK, held_out=False)
    trial = _ingest("b8" * 16, context={"evalsite.example_key": KEY})
    asking = _ingest("c9" * 16, task=TASK)
    assert Trace.objects.get(pk=trial.pk).held_out is False

    golden_example_update(example=example, data={"held_out": True}, user=curator)
    assert set(Trace.objects.filter(held_out=True).values_list("pk", flat=True)) == {
        trial.pk,
        asking.pk,
    }

    golden_example_update(example=example, data={"held_out": False}, user=curator)
    assert not Trace.objects.filter(held_out=True).exists()


def test_a_changed_task_releases_the_traces_that_asked_the_old_one(curator):
    example = GoldenExampleFactory(key=KEY, task=TASK, held_out=True)
    asking = _ingest("d1" * 16, task=TASK)
    assert Trace.objects.get(pk=asking.pk).held_out is True

    golden_example_update(example=example, data={"task": "Another task entirely."}, user=curator)

    assert Trace.objects.get(pk=asking.pk).held_out is False


def test_a_held_out_trial_never_reaches_an_annotators_queue(annotator, curator):
    GoldenExampleFactory(key=KEY, task=TASK, held_out=True)
    trial = _ingest("e2" * 16, context={"evalsite.example_key": KEY})
    item = ReviewItemFactory(trace=trial)

    assert review_item_claim_next(user=annotator, queue=item.queue) is None
    assert review_item_claim_next(user=curator, queue=item.queue) == item
