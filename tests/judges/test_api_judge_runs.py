"""POST /api/judge-runs/, GET /api/judge-runs/<id>/, POST /api/judge-runs/<id>/cancel/."""

import json

import pytest

from judges.models import JudgeRun, Judgment, JudgmentStatus
from tests.factories import JudgeRunFactory
from tests.judges import sample_traces

pytestmark = pytest.mark.django_db


def test_a_curator_starts_a_run_on_listed_traces(curator, api_client_for, capture):
    traces = [sample_traces.support_cancel_ok(), sample_traces.travel_search_loop()]

    with capture(execute=False) as callbacks:
        response = api_client_for(curator).post(
            "/api/judge-runs/",
            {"rubric": "Tool-call decision accuracy", "trace_ids": [t.pk for t in traces]},
            format="json",
        )

    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["status"], body["trace_count"], body["config"]) == ("running", 2, "default")
    assert body["progress"]["passes"]["total"] == 4
    assert Judgment.objects.filter(run_id=body["id"], status=JudgmentStatus.PENDING).count() == 4
    assert len(callbacks) == 1  # the passes are enqueued only once the run is committed


def test_a_filter_selects_traces_and_a_sample_keeps_some(curator, api_client_for, capture):
    for _ in range(3):
        sample_traces.coding_fix_ok()
    sample_traces.travel_book_ok()

    with capture(execute=False):
        response = api_client_for(curator).post(
            "/api/judge-runs/",
            {"rubric": "Outcome 1-5", "filter": {"agent_name": "coding-agent"}},
            format="json",
        )

    assert response.status_code == 201, response.json()
    assert response.json()["trace_count"] == 3


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"trace_ids": [1]}, "rubric_version"),
        ({"rubric": "No such rubric", "trace_ids": [1]}, "rubric"),
        ({"rubric": "Outcome 1-5"}, "trace_ids"),
        ({"rubric": "Outcome 1-5", "trace_ids": [987654]}, "trace_ids"),
        ({"rubric": "Outcome 1-5", "session_ids": [2**63]}, "session_ids.0"),
        ({"rubric": "Outcome 1-5", "trace_ids": [1], "sample_rate": 0}, "sample_rate"),
        ({"rubric": "Outcome 1-5", "trace_ids": [1], "config": "nope"}, "config"),
        ({"rubric": "Outcome 1-5", "filter": {"agent_name": "nobody"}}, "traces"),
    ],
)
def test_bad_input_is_refused_naming_the_field(curator, api_client_for, payload, field):
    sample_traces.support_cancel_ok()

    response = api_client_for(curator).post("/api/judge-runs/", payload, format="json")

    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]
    assert not JudgeRun.objects.exists()


def test_an_annotator_reads_progress_but_cannot_start_or_cancel(
    annotator, curator, api_client_for, capture
):
    trace = sample_traces.support_cancel_ok()
    with capture(execute=False):
        run_id = (
            api_client_for(curator)
            .post(
                "/api/judge-runs/",
                {"rubric": "Outcome 1-5", "trace_ids": [trace.pk]},
                format="json",
            )
            .json()["id"]
        )
    client = api_client_for(annotator)

    read = client.get(f"/api/judge-runs/{run_id}/")
    start = client.post("/api/judge-runs/", {"rubric": "Outcome 1-5", "trace_ids": [trace.pk]})
    cancel = client.post(f"/api/judge-runs/{run_id}/cancel/")

    assert read.status_code == 200 and read.json()["progress"]["percent"] == 0
    assert (start.status_code, cancel.status_code) == (403, 403)


def test_cancel_stops_pending_passes_and_cannot_repeat(curator, api_client_for, capture):
    trace = sample_traces.support_cancel_ok()
    client = api_client_for(curator)
    with capture(execute=False):
        run_id = client.post(
            "/api/judge-runs/", {"rubric": "Outcome 1-5", "trace_ids": [trace.pk]}, format="json"
        ).json()["id"]

    first = client.post(f"/api/judge-runs/{run_id}/cancel/")
    second = client.post(f"/api/judge-runs/{run_id}/cancel/")

    assert first.status_code == 200 and first.json()["status"] == "cancelled"
    assert first.json()["progress"]["passes"]["cancelled"] == 2
    assert second.status_code == 400 and "status" in second.json()["error"]["fields"]


def test_an_outsider_gets_403(outsider, api_client_for):
    assert api_client_for(outsider).get("/api/judge-runs/1/").status_code == 403


def _run(**fields):
    return JudgeRunFactory(**fields)


def test_runs_are_listed_newest_first_for_an_annotator(annotator, api_client_for):
    older, newer = _run(), _run(online=True)

    response = api_client_for(annotator).get("/api/judge-runs/")

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["count"] == 2
    assert [run["id"] for run in body["results"]] == [newer.pk, older.pk]
    assert body["results"][0]["rubric"] == newer.rubric_version.rubric.name


def test_the_run_list_narrows_to_a_status_and_to_online_runs(annotator, api_client_for):
    requested, online = _run(status="done"), _run(status="running", online=True)
    client = api_client_for(annotator)

    by_status = client.get("/api/judge-runs/", {"status": "done"}).json()["results"]
    by_online = client.get("/api/judge-runs/", {"online": "yes"}).json()["results"]

    assert [run["id"] for run in by_status] == [requested.pk]
    assert [run["id"] for run in by_online] == [online.pk]


@pytest.mark.parametrize(("name", "value"), [("status", "finished"), ("online", "maybe")])
def test_a_bad_run_list_filter_is_refused_naming_it(annotator, api_client_for, name, value):
    response = api_client_for(annotator).get("/api/judge-runs/", {name: value})

    assert response.status_code == 400
    assert name in json.dumps(response.json())


def test_the_run_list_reads_a_fixed_number_of_queries(
    annotator, api_client_for, django_assert_max_num_queries
):
    for _ in range(12):
        _run()
    client = api_client_for(annotator)
    with django_assert_max_num_queries(8):
        assert client.get("/api/judge-runs/").status_code == 200


def test_an_outsider_may_not_list_runs(outsider, api_client_for):
    response = api_client_for(outsider).get("/api/judge-runs/")
    assert response.status_code == 403
