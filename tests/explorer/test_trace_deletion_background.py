"""Past the cap of one request, a filter's traces are deleted in the background: offered on
the confirmation page, followed on its own page, and the same through the API."""

import pytest

from tests.traces.test_trace_deletion_jobs import _agent_traces
from traces import deletion
from traces.deletion_jobs import trace_deletion_run
from traces.models import Trace, TraceDeletion

pytestmark = pytest.mark.django_db


@pytest.fixture
def cap_of_two(monkeypatch):
    monkeypatch.setattr(deletion, "MAX_TRACES_DELETED_AT_ONCE", 2)


def test_past_the_cap_the_page_offers_a_background_deletion_and_follows_it(
    client, curator, cap_of_two, django_capture_on_commit_callbacks
):
    traces, other = _agent_traces()
    client.force_login(curator)

    page = client.get("/traces/delete/", {"agent_version": "2.0.0"})
    html = page.content.decode()
    assert page.status_code == 200
    assert "Delete 5 traces in the background?" in html
    assert f'name="up_to" value="{traces[-1].pk}"' in html
    assert 'name="expected" value="5"' in html
    assert 'action="/traces/delete/background/"' in html

    form = {"query": "agent_version=2.0.0", "up_to": str(traces[-1].pk), "expected": "5"}
    with django_capture_on_commit_callbacks() as published:
        started = client.post("/traces/delete/background/", form)
    made = TraceDeletion.objects.get()
    assert started.status_code == 302
    assert started["Location"] == f"/traces/deletions/{made.pk}/"
    assert len(published) == 1  # the worker's message, sent once the row is committed
    assert (made.query, made.matched, made.created_by) == ("agent_version=2.0.0", 5, curator)

    waiting = client.get(started["Location"]).content.decode()
    assert "Waiting for a worker" in waiting
    assert f'hx-get="/traces/deletions/{made.pk}/progress/"' in waiting  # polls while live
    assert 'href="/traces/?agent_version=2.0.0"' in waiting

    trace_deletion_run(made.pk)
    progress = client.get(f"/traces/deletions/{made.pk}/progress/").content.decode()
    assert "hx-get" not in progress  # finished: it stops polling
    assert "5 of 5 traces gone through (100%)" in progress
    assert "Kept by golden examples: 1 trace" in progress
    listed = client.get("/traces/deletions/").content.decode()
    assert f'href="/traces/deletions/{made.pk}/"' in listed and "Done" in listed
    assert set(Trace.objects.values_list("pk", flat=True)) == {traces[1].pk, other.pk}


def test_a_filter_matching_another_count_by_now_is_shown_again(client, curator, cap_of_two):
    traces, _ = _agent_traces()
    client.force_login(curator)
    form = {"query": "agent_version=2.0.0", "up_to": str(traces[-1].pk), "expected": "7"}

    again = client.post("/traces/delete/background/", form)

    assert again.status_code == 409
    assert "The filter matches 5 of those traces now, not 7" in again.content.decode()
    unsaid = client.post("/traces/delete/background/", {**form, "up_to": "", "expected": "0"})
    assert unsaid.status_code == 409
    assert "did not say up to which trace" in unsaid.content.decode()
    assert not TraceDeletion.objects.exists()


def test_a_curator_stops_it_from_its_page(client, curator, annotator, cap_of_two):
    traces, _ = _agent_traces()
    client.force_login(curator)
    form = {"query": "agent_version=2.0.0", "up_to": str(traces[-1].pk), "expected": "5"}
    made_url = client.post("/traces/delete/background/", form)["Location"]
    made = TraceDeletion.objects.get()

    client.force_login(annotator)
    assert client.get(made_url).status_code == 403
    assert client.post(f"/traces/deletions/{made.pk}/stop/").status_code == 403
    client.force_login(curator)
    stopped = client.post(f"/traces/deletions/{made.pk}/stop/", follow=True)
    assert "Stopped; the traces deleted so far stay deleted." in stopped.content.decode()
    made.refresh_from_db()
    assert made.status == TraceDeletion.Status.STOPPED
    assert Trace.objects.filter(agent_version="2.0.0").count() == 5


def test_the_one_request_api_points_past_its_cap_to_the_background(
    api_client_for, curator, cap_of_two
):
    _agent_traces()
    refused = api_client_for(curator).post(
        "/api/traces/delete/", {"filter": {"agent_version": "2.0.0"}}, format="json"
    )
    assert refused.status_code == 400
    assert "/api/traces/deletions/" in refused.json()["error"]["message"]


def test_the_api_starts_reads_lists_and_stops_a_background_deletion(
    api_client_for, curator, annotator
):
    traces, _ = _agent_traces()
    api = api_client_for(curator)

    started = api.post(
        "/api/traces/deletions/", {"filter": {"agent_version": "2.0.0"}}, format="json"
    )
    assert started.status_code == 202, started.json()
    body = started.json()
    assert body["status"] == "waiting" and body["matched"] == 5
    assert body["filter"] == {"agent_version": "2.0.0"}
    assert body["up_to_trace_id"] == traces[-1].pk and body["requested_by"] == "cora"

    trace_deletion_run(body["id"])
    read = api.get(f"/api/traces/deletions/{body['id']}/").json()
    assert (read["status"], read["deleted"], read["kept"]) == ("done", 4, 1)
    assert read["kept_by"] == {"golden examples": 1}
    assert read["kept_sample"] == [traces[1].pk]
    assert [d["id"] for d in api.get("/api/traces/deletions/").json()["results"]] == [body["id"]]

    finished = api.post(f"/api/traces/deletions/{body['id']}/stop/")
    assert finished.status_code == 409
    assert api_client_for(annotator).get("/api/traces/deletions/").status_code == 403


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "filter"),
        ({"filter": {"no_such_filter": "x"}}, "filter.no_such_filter"),
        ({"filter": {"agent_version": "9.9.9"}}, "filter"),  # matches nothing
        ({"filter": "agent_version=2.0.0"}, "filter"),
    ],
)
def test_a_refused_background_deletion_names_the_field(api_client_for, curator, body, field):
    _agent_traces()
    response = api_client_for(curator).post("/api/traces/deletions/", body, format="json")
    assert response.status_code == 400, response.json()
    assert field in response.json()["error"]["fields"]
    assert not TraceDeletion.objects.exists()
