"""Two agent versions over a small golden set, through the real ingestion API, scoring and CLI.

1.5.0 cancels an order id it made up while still telling the customer the right order: the
gate must block it on parameter accuracy while its outcome score is unchanged.
"""

import json
import os

import pytest

from metrics.models import RedFlag
from tests.evals.golden_set import EXAMPLES, agent_payload, gate_arguments, golden_version_create
from tests.integration.conftest import database_url_for_worker
from tests.manage_py import manage_py
from traces.models import Trace
from traces.tasks import trace_settle_sweep_task

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
TRIALS = 2


def _agent_run(client, version: str, run: str) -> dict:
    created = client.post(
        "/api/eval-runs/",
        {
            "name": run,
            "agent_version": version,
            "agent_name": "support-agent",
            "dataset_version": "support-v1",
            "trials_per_task": TRIALS,
        },
        format="json",
    )
    assert created.status_code == 201, created.json()
    for example in EXAMPLES:
        for trial in range(TRIALS):
            sent = client.post(
                "/api/traces/", agent_payload(version, example["key"], run, trial), format="json"
            )
            assert sent.status_code == 201, sent.json()
    return created.json()


def _gate(baseline: str, candidate: str, tmp_path, env_database: str):
    report, junit = tmp_path / f"{candidate}.json", tmp_path / f"{candidate}.xml"
    result = manage_py(
        {**os.environ, "DATABASE_URL": env_database},
        *gate_arguments(report, junit, baseline, candidate),
    )
    return result, json.loads(report.read_text()), junit.read_text()


def test_gate_blocks_correct_by_accident_agent(curator, api_client_for, settings, tmp_path):
    # given the golden set and both agent versions' traces sent through the ingestion API
    settings.TRACE_SETTLE_SECONDS = 0
    golden_version_create()
    client = api_client_for(curator)
    runs = {
        "ci-812-base": _agent_run(client, "1.4.0", "ci-812-base"),
        "ci-813-again": _agent_run(client, "1.4.0", "ci-813-again"),
        "ci-814-cand": _agent_run(client, "1.5.0", "ci-814-cand"),
    }
    # when the traces complete on arrival (red flags are checked) and each run is scored
    assert Trace.objects.filter(completed_at__isnull=False).count() == 3 * len(EXAMPLES) * TRIALS
    assert trace_settle_sweep_task() == 0
    for run in runs.values():
        scored = client.post(
            f"/api/eval-runs/{run['id']}/score/", {"use_llm": False}, format="json"
        )
        assert scored.status_code == 200, scored.json()
        run["metrics"] = scored.json()["metrics"]["overall"]
    # then the hallucinated id was flagged on its span when the trace settled
    flagged = RedFlag.objects.filter(kind="hallucinated_parameter").select_related("span")
    assert flagged.count() == TRIALS
    assert {flag.span.tool_name for flag in flagged} == {"cancel_order"}
    assert {flag.trace.agent_version for flag in flagged} == {"1.5.0"}
    # and the outcome score is the same for both versions, parameter accuracy is not
    base, cand = runs["ci-812-base"]["metrics"], runs["ci-814-cand"]["metrics"]
    assert base["outcome_score"] == cand["outcome_score"] == 1.0
    assert base["parameter_accuracy"] == 1.0
    # the default counts the write and the lookup its id comes from: the cancel task scores
    # (1 + 0) / 2, the others 1
    assert cand["parameter_accuracy"] == pytest.approx((0.5 + 1 + 1) / 3)

    database = database_url_for_worker()
    # an unchanged agent passes the gate, exit code 0
    same, same_report, _ = _gate("ci-812-base", "ci-813-again", tmp_path, database)
    assert same.returncode == 0, same.stderr
    assert same_report["decision"] == "pass"
    # the candidate is blocked on parameter accuracy, exit code non-zero, outcome not blocking
    blocked, report, junit = _gate("ci-812-base", "ci-814-cand", tmp_path, database)
    assert blocked.returncode != 0
    assert report["decision"] == "block" and "parameter_accuracy" in report["blocked_by"]
    rows = {row["metric"]: row for row in report["metrics"]}
    assert rows["outcome_score"]["blocked"] is False
    assert rows["outcome_score"]["baseline"] == rows["outcome_score"]["candidate"]
    assert rows["parameter_accuracy"]["relative_drop"] == pytest.approx(1 / 6)
    assert '<testcase classname="evalsite.gate" name="parameter_accuracy"><failure' in junit
    assert "parameter_accuracy dropped" in blocked.stderr
