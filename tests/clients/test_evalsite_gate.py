"""The evalsite-gate client against a live test server: start, the agent's traces, finish.

The client is imported from its source folder, as its own tests would after `pip install -e`.
"""

import json
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from accounts.models import ApiToken
from accounts.roles import ANNOTATOR, CURATOR
from golden.evals.confirmation import eval_run_pairs_enqueue
from golden.models import EvalRun
from reviews.claims import review_item_claim_next
from reviews.pairwise import pairwise_answer, pairwise_layout, pairwise_queue
from tests.built_in_rows import built_in_rubrics_seed
from tests.evals.golden_set import (
    EXAMPLES,
    agent_and_dataset_arguments,
    agent_payload,
    eval_run_scored_by_commands,
    golden_version_create,
)
from tests.factories import UserFactory

CLIENT_SRC = Path(__file__).resolve().parents[2] / "clients" / "evalsite-gate" / "src"
sys.path.insert(0, str(CLIENT_SRC))

from evalsite_gate import cli  # noqa: E402
from evalsite_gate.api import Evalsite  # noqa: E402

pytestmark = pytest.mark.django_db(transaction=True)
FAKE_AGENT = Path(__file__).with_name("fake_agent.py")


@pytest.fixture
def server(live_server, monkeypatch, tmp_path):
    """A live evalsite with the golden set, a scored 1.4.0 baseline and a curator's token."""
    built_in_rubrics_seed()  # an earlier transactional test may have flushed the seed config
    golden_version_create()
    eval_run_scored_by_commands("1.4.0", "base")
    token = ApiToken.generate(UserFactory(username="ci", roles=[CURATOR]), "ci")[1]
    summary, github_env = tmp_path / "summary.md", tmp_path / "github.env"
    monkeypatch.setenv("EVALSITE_URL", live_server.url)
    monkeypatch.setenv("EVALSITE_TOKEN", token)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_ENV", str(github_env))
    monkeypatch.delenv("OTEL_RESOURCE_ATTRIBUTES", raising=False)
    return {"url": live_server.url, "token": token, "summary": summary, "env": github_env}


def _start(name, version, tmp_path):
    return cli.main(
        [
            "start",
            "--name",
            name,
            *agent_and_dataset_arguments(version),
            "--tasks-file",
            str(tmp_path / "tasks.jsonl"),
        ]
    )


def _agent_sends(server, version, run):
    site = Evalsite(server["url"], server["token"])
    for example in EXAMPLES:
        site.request("POST", "/api/traces/", agent_payload(version, example["key"], run, 0))


FINISH = ["--baseline", "latest", "--no-llm", "--poll-seconds", "0"]


def test_start_then_finish_blocks_the_hallucinating_agent(server, tmp_path, capsys):
    # when CI starts a run for the candidate
    assert _start("cand", "1.5.0", tmp_path) == 0
    out = capsys.readouterr().out
    # then the run exists and the tagging variables are printed and handed to later steps
    assert EvalRun.objects.get(name="cand").agent_version == "1.5.0"
    assert "EVALSITE_EVAL_RUN=cand" in out.splitlines()
    assert "OTEL_RESOURCE_ATTRIBUTES=evalsite.eval_run=cand" in out.splitlines()
    assert "EVALSITE_EVAL_RUN=cand" in server["env"].read_text()
    tasks = [json.loads(line) for line in (tmp_path / "tasks.jsonl").read_text().splitlines()]
    assert {t["example_key"] for t in tasks} == {e["key"] for e in EXAMPLES}
    assert tasks[0]["attributes"]["evalsite.eval_run"] == "cand"
    # when the agent sends its traces and CI finishes
    _agent_sends(server, "1.5.0", "cand")
    json_path, junit_path = tmp_path / "gate.json", tmp_path / "gate.xml"
    code = cli.main(
        ["finish", "--run", "cand", *FINISH, "--json", str(json_path), "--junit", str(junit_path)]
    )
    # then the gate blocks with exit 1, and says why everywhere CI looks
    assert code == 1
    captured = capsys.readouterr()
    assert "BLOCK" in captured.out and "FAIL  cancel-recent-order #0" in captured.out
    assert "Nothing to judge" in captured.err
    report = json.loads(json_path.read_text())
    assert report["decision"] == "block" and report["baseline"]["name"] == "base"
    assert "parameter_accuracy" in report["blocked_by"]
    gate_suite, trials_suite = ET.parse(junit_path).getroot().findall("testsuite")
    assert "parameter_accuracy" in {
        c.get("name") for c in gate_suite.iter("testcase") if c.find("failure") is not None
    }
    assert trials_suite.get("failures") == "1"
    summary = server["summary"].read_text()
    assert summary.startswith("## ❌ evalsite gate: block")
    assert "| parameter_accuracy |" in summary and "cancel-recent-order" in summary


def test_run_wraps_the_agent_command_and_passes_an_unchanged_agent(server, tmp_path, capsys):
    # given the agent's traces, to be sent by a separate process that reads its environment
    payloads = tmp_path / "payloads.json"
    payloads.write_text(
        json.dumps([agent_payload("1.4.0", e["key"], "to-be-filled", 0) for e in EXAMPLES])
    )
    # when CI wraps the agent command
    code = cli.main(
        [
            "run",
            "--name",
            "same",
            *agent_and_dataset_arguments("1.4.0"),
            *FINISH,
            "--",
            sys.executable,
            str(FAKE_AGENT),
            str(payloads),
        ]
    )
    # then the traces landed under the run, and the gate passes
    assert code == 0, capsys.readouterr().err
    assert EvalRun.objects.get(name="same").trials.filter(trace__isnull=False).count() == 3
    assert "PASS" in capsys.readouterr().out
    assert server["summary"].read_text().startswith("## ✅ evalsite gate: pass")


def test_server_refusal_is_exit_2_naming_the_field(server, tmp_path, capsys):
    code = cli.main(
        ["start", "--name", "x", "--agent-version", "1", "--dataset-version", "no-such-version"]
    )
    assert code == 2
    assert "dataset_version" in capsys.readouterr().err
    assert not EvalRun.objects.filter(name="x").exists()


def test_missing_server_settings_are_exit_2(monkeypatch, capsys):
    monkeypatch.delenv("EVALSITE_URL", raising=False)
    monkeypatch.delenv("EVALSITE_TOKEN", raising=False)
    assert cli.main(["finish", "--run", "x", "--baseline", "y"]) == 2
    assert "EVALSITE_URL" in capsys.readouterr().err


def test_a_drop_waits_for_people_with_exit_3_then_blocks_once_they_confirm(
    server, tmp_path, capsys
):
    # given a candidate whose order cancellation regressed
    assert _start("cand", "1.5.0", tmp_path) == 0
    _agent_sends(server, "1.5.0", "cand")
    waiting = ["finish", "--run", "cand", *FINISH, "--require-people-confirmation"]
    # when CI finishes before people compared the regressed task
    code = cli.main(waiting)
    # then the gate neither passes nor blocks: exit 3, and the report says why
    assert code == cli.AWAITING_PEOPLE
    out = capsys.readouterr().out
    assert "\nAWAITING_PEOPLE: Awaiting people: the metrics dropped" in out
    assert "people: People preferred the baseline on 0 of 1 regressed task" in out
    assert "⏳ evalsite gate: awaiting_people" in server["summary"].read_text()
    # when people prefer the baseline on that task, the same command blocks
    base, cand = EvalRun.objects.get(name="base"), EvalRun.objects.get(name="cand")
    eval_run_pairs_enqueue(base, cand)
    annotator = UserFactory(username="ann", roles=[ANNOTATOR])
    item = review_item_claim_next(user=annotator, queue=pairwise_queue())
    side = pairwise_layout(item.pairwise).side_of("baseline")
    pairwise_answer(item=item, user=annotator, answers=[side])
    assert cli.main(waiting) == cli.BLOCK
    assert "People preferred the baseline on 1 of 1" in capsys.readouterr().out
