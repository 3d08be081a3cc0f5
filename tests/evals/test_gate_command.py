"""`manage.py gate` and friends: exit codes, JSON report and JUnit XML on disk."""

import json
from xml.etree import ElementTree as ET

import pytest
from django.core.management import CommandError, call_command

from tests.evals.golden_set import (
    eval_run_scored_by_commands,
    gate_command,
    golden_version_create,
)

pytestmark = pytest.mark.django_db


def test_gate_blocks_the_hallucinating_agent_with_exit_code_and_reports(tmp_path, capsys):
    # given a baseline and a candidate that hallucinates an order id
    golden_version_create()
    eval_run_scored_by_commands("1.4.0", "base")
    eval_run_scored_by_commands("1.5.0", "cand")
    json_path, junit_path = tmp_path / "gate.json", tmp_path / "gate.xml"
    # when
    with pytest.raises(SystemExit) as exited:
        gate_command(json_path, junit_path)
    # then
    assert exited.value.code == 1
    report = json.loads(json_path.read_text())
    assert report["decision"] == "block" and "parameter_accuracy" in report["blocked_by"]
    assert "outcome_score" not in report["blocked_by"]
    suite = ET.parse(junit_path).getroot().find("testsuite")
    failed = {
        case.get("name") for case in suite.iter("testcase") if case.find("failure") is not None
    }
    assert "parameter_accuracy" in failed and int(suite.get("failures")) == len(failed)
    out = capsys.readouterr().out
    assert "BLOCK" in out
    # and each report says which trial failed and why
    [trial] = report["candidate_trials"]["failed"]
    assert (trial["example_key"], trial["trial"]) == ("cancel-recent-order", 0)
    assert any("hallucinated_parameter" in reason for reason in trial["reasons"])
    assert report["candidate_trials"]["passed"] == 2
    trials_suite = ET.parse(junit_path).getroot().findall("testsuite")[1]
    assert trials_suite.get("name") == "evalsite.trials"
    assert (trials_suite.get("tests"), trials_suite.get("failures")) == ("3", "1")
    failure = trials_suite.find("testcase/failure")
    assert "hallucinated_parameter" in failure.get("message")
    assert "FAIL  cancel-recent-order #0" in out and "A1043" in out


def test_gate_passes_an_unchanged_agent(tmp_path):
    golden_version_create()
    eval_run_scored_by_commands("1.4.0", "base")
    eval_run_scored_by_commands("1.4.0", "again")
    gate_command(tmp_path / "r.json", tmp_path / "r.xml", candidate="again")
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["decision"] == "pass" and report["candidate_trials"]["failed"] == []
    suites = ET.parse(tmp_path / "r.xml").getroot().findall("testsuite")
    assert [suite.get("failures") for suite in suites] == ["0", "0"]


def test_gate_names_a_missing_run():
    with pytest.raises(CommandError, match="baseline"):
        call_command("gate", "--baseline", "nope", "--candidate", "nope")


def test_eval_run_create_refuses_an_unknown_dataset_version():
    with pytest.raises(CommandError, match="dataset_version"):
        call_command(
            "eval_run_create", "r1", "--agent-version", "1.0", "--dataset-version", "missing"
        )


def test_gate_writes_no_report_files_unless_asked(tmp_path, monkeypatch, capsys):
    # given two scored runs and an empty working directory
    golden_version_create()
    eval_run_scored_by_commands("1.4.0", "base")
    eval_run_scored_by_commands("1.4.0", "same")
    monkeypatch.chdir(tmp_path)
    # when the gate runs without --json or --junit
    call_command("gate", "--baseline", "base", "--candidate", "same")
    # then nothing was written and the output names no report file
    assert list(tmp_path.iterdir()) == []
    assert "JSON report" not in capsys.readouterr().out
