"""POST /api/judge-runs/, GET /api/judge-runs/<id>/, POST /api/judge-runs/<id>/cancel/."""

import pytest

from judges.models import JudgeRun, Judgment, JudgmentStatus
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
