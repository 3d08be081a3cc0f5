"""Deleting traces through the pages and the API: confirmation first, kept traces named."""

import pytest

from reviews.models import AuditEvent
from tests.factories import GoldenExampleFactory, TraceFactory
from tests.traces.test_trace_deletion import KEPT_BY_EXAMPLE, judged_trace
from traces.models import Trace

pytestmark = pytest.mark.django_db


def _agent_traces():
    """Two traces of agent v2 (one promoted to golden), one of v1."""
    free = judged_trace(task="Refund order A1990")
    free.agent_version = "2.0.0"
    free.save(update_fields=["agent_version"])
    kept = TraceFactory(agent_version="2.0.0", task="Promoted one")
    GoldenExampleFactory(source_trace=kept)
    other = TraceFactory(agent_version="1.0.0", task="Another agent version")
    return free, kept, other


# The pages


def test_the_list_offers_deleting_its_traces_to_curators_only(client, annotator, curator):
    _agent_traces()
    client.force_login(annotator)
    assert 'id="delete-listed"' not in client.get("/traces/").content.decode()
    client.force_login(curator)
    page = client.get("/traces/", {"agent_version": "2.0.0"}).content.decode()
    assert 'href="/traces/delete/?agent_version=2.0.0" id="delete-listed"' in page


def test_a_filter_is_confirmed_then_its_unkept_traces_deleted(client, curator):
    free, kept, other = _agent_traces()
    client.force_login(curator)

    page = client.get("/traces/delete/", {"agent_version": "2.0.0", "sort": "-span_count"})
    html = page.content.decode()
    assert page.status_code == 200
    assert "Delete 1 of 2 traces?" in html
    assert f"Kept by {KEPT_BY_EXAMPLE}: 1 trace." in html
    assert 'name="query" value="agent_version=2.0.0"' in html
    assert 'name="expected" value="2"' in html
    assert "Another agent version" not in html

    done = client.post("/traces/delete/", {"query": "agent_version=2.0.0", "expected": "2"})

    assert done.status_code == 302
    assert done["Location"] == "/traces/?agent_version=2.0.0"
    assert set(Trace.objects.values_list("pk", flat=True)) == {kept.pk, other.pk}
    followed = client.get(done["Location"]).content.decode()
    assert f"Deleted 1 trace. 1 kept (by {KEPT_BY_EXAMPLE}: 1)." in followed


def test_a_filter_that_matches_another_count_by_now_is_shown_again(client, curator):
    _agent_traces()
    client.force_login(curator)
    TraceFactory(agent_version="2.0.0", task="Arrived meanwhile")

    again = client.post("/traces/delete/", {"query": "agent_version=2.0.0", "expected": "2"})

    assert again.status_code == 409
    assert "The filter matches 3 traces now, not 2" in again.content.decode()
    assert Trace.objects.count() == 4


def test_one_trace_from_its_page_and_a_kept_one_says_why(client, curator):
    free, kept, _ = _agent_traces()
    client.force_login(curator)
    assert 'id="trace-delete"' in client.get(f"/traces/{free.pk}/").content.decode()

    kept_page = client.get(f"/traces/{kept.pk}/delete/").content.decode()
    assert "This trace cannot be deleted yet" in kept_page
    assert f"Kept by {KEPT_BY_EXAMPLE}: 1 trace." in kept_page
    assert 'id="delete-form"' not in kept_page
    refused = client.post(f"/traces/{kept.pk}/delete/")
    assert refused["Location"] == f"/traces/{kept.pk}/"
    assert Trace.objects.filter(pk=kept.pk).exists()
    assert KEPT_BY_EXAMPLE in client.get(refused["Location"]).content.decode()

    confirm = client.get(f"/traces/{free.pk}/delete/").content.decode()
    assert "Delete this trace?" in confirm
    done = client.post(f"/traces/{free.pk}/delete/")
    assert done["Location"] == "/traces/"
    assert not Trace.objects.filter(pk=free.pk).exists()


def test_annotators_cannot_delete_traces_through_the_pages(client, annotator):
    trace = TraceFactory()
    client.force_login(annotator)
    assert client.post(f"/traces/{trace.pk}/delete/").status_code == 403
    assert client.post("/traces/delete/", {"query": "", "expected": "1"}).status_code == 403
    assert Trace.objects.filter(pk=trace.pk).exists()


# The API


def test_delete_one_trace_through_the_api(api_client_for, curator, annotator):
    free, kept, _ = _agent_traces()
    assert api_client_for(annotator).delete(f"/api/traces/{free.pk}/").status_code == 403
    api = api_client_for(curator)

    refused = api.delete(f"/api/traces/{kept.pk}/")
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "kept"
    assert "trace_id" in refused.json()["error"]["fields"]

    assert api.delete(f"/api/traces/{free.pk}/").status_code == 204
    assert api.delete(f"/api/traces/{free.pk}/").status_code == 404
    assert AuditEvent.objects.filter(action="trace_delete").count() == 1


def test_delete_by_ids_is_all_or_nothing_and_by_filter_reports_the_kept(api_client_for, curator):
    free, kept, other = _agent_traces()
    api = api_client_for(curator)

    refused = api.post("/api/traces/delete/", {"ids": [free.pk, kept.pk]}, format="json")
    assert refused.status_code == 409
    assert "ids" in refused.json()["error"]["fields"]
    assert Trace.objects.count() == 3

    by_filter = api.post(
        "/api/traces/delete/", {"filter": {"agent_version": "2.0.0"}}, format="json"
    )
    assert by_filter.status_code == 200
    assert by_filter.json() == {"deleted": 1, "kept": [kept.pk], "kept_by": {KEPT_BY_EXAMPLE: 1}}

    by_ids = api.post("/api/traces/delete/", {"ids": [other.pk]}, format="json")
    assert by_ids.json() == {"deleted": 1, "kept": [], "kept_by": {}}
    assert list(Trace.objects.values_list("pk", flat=True)) == [kept.pk]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"ids": [999999]}, "ids"),
        ({}, "ids"),
        ({"ids": []}, "ids"),
        ({"filter": {"no_such_filter": "x"}}, "filter.no_such_filter"),
        ({"filter": {"agent_version": "9.9.9"}}, "filter"),  # matches nothing
    ],
)
def test_a_refused_api_deletion_names_the_field(api_client_for, curator, body, field):
    trace = TraceFactory()
    response = api_client_for(curator).post("/api/traces/delete/", body, format="json")
    assert response.status_code == 400, response.json()
    assert field in response.json()["error"]["fields"]
    assert Trace.objects.filter(pk=trace.pk).exists()
