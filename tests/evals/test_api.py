"""Eval-run endpoints and POST /api/gate/: roles, JSON errors naming fields, the decision."""

import pytest

from golden.models import EvalRun
from tests.built_in_rows import built_in_rubrics_seed
from tests.evals.golden_set import (
    agent_payload,
    agent_run_traces,
    golden_version_create,
    trace_from_payload,
)

pytestmark = pytest.mark.django_db


def _record(client, name, version):
    response = client.post(
        "/api/eval-runs/",
        {
            "name": name,
            "agent_version": version,
            "agent_name": "support-agent",
            "dataset_version": "support-v1",
            "trials_per_task": 1,
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    agent_run_traces(version, name)
    scored = client.post(
        f"/api/eval-runs/{response.json()['id']}/score/", {"use_llm": False}, format="json"
    )
    assert scored.status_code == 200, scored.json()
    return scored.json()


def _created(client, name):
    """A 1.4.0 run over support-v1, recorded with the API's defaults, not yet scored."""
    body = {"name": name, "agent_version": "1.4.0", "dataset_version": "support-v1"}
    return client.post("/api/eval-runs/", body, format="json").json()


def test_curator_records_scores_and_gates_runs(curator, api_client_for):
    # given the golden set and a curator's API client
    golden_version_create()
    client = api_client_for(curator)
    # when two runs are recorded and scored
    base = _record(client, "base", "1.4.0")
    cand = _record(client, "cand", "1.5.0")
    # then their metrics come back and the gate blocks the candidate
    assert base["metrics"]["overall"]["parameter_accuracy"] == 1.0
    assert cand["metrics"]["overall"]["outcome_score"] == 1.0
    response = client.post(
        "/api/gate/", {"baseline": "base", "candidate": cand["id"]}, format="json"
    )
    assert response.status_code == 200
    body = response.json()
    assert body["decision"] == "block" and "parameter_accuracy" in body["blocked_by"]


def test_annotator_can_read_and_gate_but_not_record(annotator, api_client_for):
    golden_version_create()
    client = api_client_for(annotator)
    assert client.get("/api/eval-runs/").status_code == 200
    denied = client.post(
        "/api/eval-runs/",
        {"name": "x", "agent_version": "1", "dataset_version": "support-v1"},
        format="json",
    )
    assert denied.status_code == 403


def test_outsider_is_refused(outsider, api_client_for):
    assert api_client_for(outsider).post("/api/gate/", {}, format="json").status_code == 403


def test_gate_errors_name_the_field(curator, api_client_for):
    golden_version_create()
    client = api_client_for(curator)
    bad_k = client.post("/api/gate/", {"baseline": "a", "candidate": "b", "k": 5}, format="json")
    assert bad_k.status_code == 400 and "k" in bad_k.json()["error"]["fields"]
    missing = client.post("/api/gate/", {"baseline": "nope", "candidate": "nope"}, format="json")
    assert missing.status_code == 404 and "baseline" in missing.json()["error"]["fields"]
    # "¹" is a digit to str.isdigit but no number to int: a name like any other
    superscript = client.post("/api/gate/", {"baseline": "¹", "candidate": "²"}, format="json")
    assert superscript.status_code == 404 and "baseline" in superscript.json()["error"]["fields"]
    unknown_metric = client.post(
        "/api/gate/",
        {"baseline": "a", "candidate": "b", "thresholds": {"vibes": 0.1}},
        format="json",
    )
    assert "thresholds" in unknown_metric.json()["error"]["fields"]


def test_duplicate_run_name_is_refused_and_nothing_is_written(curator, api_client_for):
    golden_version_create()
    client = api_client_for(curator)
    body = {"name": "r", "agent_version": "1", "dataset_version": "support-v1"}
    assert client.post("/api/eval-runs/", body, format="json").status_code == 201
    again = client.post("/api/eval-runs/", body, format="json")
    assert again.status_code == 400 and "name" in again.json()["error"]["fields"]
    assert EvalRun.objects.filter(name="r").count() == 1


def test_judge_endpoint_starts_one_judge_run_per_outcome_rubric(curator, api_client_for):
    # given a run whose examples name the seeded outcome rubric
    from judges.models import JudgeRun, Rubric

    built_in_rubrics_seed()
    rubric = Rubric.objects.get(name="Outcome 1-5")
    golden_version_create(outcome_rubric=rubric)
    client = api_client_for(curator)
    run = _created(client, "judged")
    agent_run_traces("1.4.0", "judged")
    # when
    response = client.post(f"/api/eval-runs/{run['id']}/judge/", {}, format="json")
    # then
    assert response.status_code == 202
    (judge_run_id,) = response.json()["judge_runs"]
    judge_run = JudgeRun.objects.get(pk=judge_run_id)
    assert judge_run.rubric_version.rubric == rubric and judge_run.trace_count == 3


def test_judge_endpoint_explains_when_no_example_has_an_outcome_rubric(curator, api_client_for):
    golden_version_create()
    client = api_client_for(curator)
    run = _created(client, "plain")
    trace_from_payload(agent_payload("1.4.0", "cancel-recent-order", "plain", 0))
    response = client.post(f"/api/eval-runs/{run['id']}/judge/", {}, format="json")
    assert response.status_code == 400 and "run" in response.json()["error"]["fields"]


def test_eval_runs_are_paged_newest_first_and_found_by_their_fields(curator, api_client_for):
    # given three recorded runs, one scored, one a no-op
    golden_version_create()
    client = api_client_for(curator)
    scored = _record(client, "nightly-1", "1.4.0")
    for name, noop in (("nightly-2", False), ("noop-check", True)):
        body = {"name": name, "agent_version": "1.5.0", "agent_name": "support-agent"}
        body |= {"dataset_version": "support-v1", "is_noop": noop}
        assert client.post("/api/eval-runs/", body, format="json").status_code == 201
    # when the list is read a page at a time and by its filters
    first_page = client.get("/api/eval-runs/?limit=2").json()
    by_name = client.get("/api/eval-runs/?name=nightly-2").json()
    baseline = client.get(
        "/api/eval-runs/?agent_name=support-agent&dataset_version=support-v1"
        "&is_noop=false&scored=true"
    ).json()
    # then pages come newest first, and each filter narrows the list
    assert first_page["count"] == 3 and first_page["next"]
    assert [r["name"] for r in first_page["results"]] == ["noop-check", "nightly-2"]
    assert [r["name"] for r in by_name["results"]] == ["nightly-2"]
    assert [r["id"] for r in baseline["results"]] == [scored["id"]]


def test_a_bad_eval_run_filter_is_refused_naming_it(curator, api_client_for):
    response = api_client_for(curator).get("/api/eval-runs/?scored=perhaps")
    assert response.status_code == 400
    assert "scored" in response.json()["error"]["fields"]
