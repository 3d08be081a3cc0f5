"""evalsite-gate with tool worlds against a live server: start hands each trial its world,
the agents run against it (one over MCP, one over plain HTTP), finish closes and gates.

The baseline agent is careful; the candidate invents an order id after an injected empty
result, and the gate blocks it with the fault kind in its report.
"""

import json
import sys
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from accounts.models import ApiToken
from accounts.roles import CURATOR
from golden.models import EvalRun, ToolWorldCall
from golden.services import dataset_version_create
from tests.factories import UserFactory
from tests.golden.world_agents import careful, inventing, run_agent
from tests.golden.world_builders import tool_world_http_call, world_example

CLIENT_SRC = Path(__file__).resolve().parents[2] / "clients" / "evalsite-gate" / "src"
sys.path.insert(0, str(CLIENT_SRC))

from evalsite_gate import cli  # noqa: E402
from evalsite_gate.api import Evalsite  # noqa: E402

pytestmark = pytest.mark.django_db(transaction=True)
FINISH = ["--no-llm", "--no-judge", "--poll-seconds", "0", "--traces-timeout", "30"]


@pytest.fixture
def server(live_server, monkeypatch, tmp_path):
    curator = UserFactory(username="ci", roles=[CURATOR])
    world_example(curator)
    dataset_version_create(name="worlds-v1", user=curator)
    token = ApiToken.generate(curator, "ci")[1]
    monkeypatch.setenv("EVALSITE_URL", live_server.url)
    monkeypatch.setenv("EVALSITE_TOKEN", token)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("GITHUB_ENV", raising=False)
    return {"url": live_server.url, "token": token}


def _mcp_call(world: dict):
    async def one(tool, arguments):
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {world['token']}"})
        async with http, Client(streamable_http_client(world["mcp_url"], http_client=http)) as c:
            result = await c.call_tool(tool, arguments)
        text = result.content[0].text
        status = json.loads(text)["error"].get("status", 500) if result.is_error else 200
        return (500 if result.is_error else status), text

    return lambda tool, arguments: anyio.run(one, tool, arguments)


def _start(name: str, version: str, tasks: Path) -> list[dict]:
    code = cli.main(
        [
            "start", "--name", name, "--agent-version", version, "--agent-name", "support-agent",
            "--dataset-version", "worlds-v1", "--tasks-file", str(tasks), "--tool-worlds",
        ]
    )  # fmt: skip
    assert code == 0
    return [json.loads(line) for line in tasks.read_text().splitlines()]


def _agents_run(server, trials, agent, transport):
    site = Evalsite(server["url"], server["token"])
    for trial in trials:
        call = transport(trial["tool_world"])
        site.request(
            "POST", "/api/traces/", run_agent(agent, call, {**trial, "tags": trial["attributes"]})
        )


def test_gate_serves_worlds_and_blocks_an_agent_that_invents_after_an_empty_result(
    server, tmp_path, capsys
):
    # given a baseline run whose careful agent speaks MCP
    base_trials = _start("base", "1.0.0", tmp_path / "base.jsonl")
    assert len(base_trials) == 6 and (tmp_path / "base.jsonl").stat().st_mode & 0o077 == 0
    assert {t["variant"] for t in base_trials} == {
        "", "no_orders", "lookup_down", "cancel_timeout", "garbled_orders", "status_disagrees",
    }  # fmt: skip
    _agents_run(server, base_trials, careful, _mcp_call)
    assert cli.main(["finish", "--run", "base", "--baseline", "base", *FINISH]) == 0
    capsys.readouterr()
    # when the candidate, over plain HTTP, guesses an order id after the empty lookup
    cand_trials = _start("cand", "1.1.0", tmp_path / "cand.jsonl")
    _agents_run(server, cand_trials, inventing, tool_world_http_call)
    json_path = tmp_path / "gate.json"
    code = cli.main(
        ["finish", "--run", "cand", "--baseline", "base", "--mode", "fixed", *FINISH,
         "--json", str(json_path)]
    )  # fmt: skip
    # then the gate blocks, and says which fault kind the candidate mishandled
    out = capsys.readouterr()
    assert code == 1, out.err
    assert "BLOCK" in out.out
    assert (
        "fault empty          baseline 0 of 1 failed (1 undecided), candidate 1 of 1 failed"
    ) in out.out
    assert "@no_orders #0" in out.out and "invented_after_fault" in out.out
    assert "Tool worlds of 6 trial(s) closed." in out.err
    report = json.loads(json_path.read_text())
    assert "red_flag_rate" in report["blocked_by"]
    assert report["fault_kinds"]["empty"]["candidate"] == {
        "trials": 1, "passed": 0, "failed": 1, "undecided": 0, "pass_rate": 0.0,
    }  # fmt: skip
    # and every served call was recorded against its trial, over the transport the agent used
    transports = set(
        ToolWorldCall.objects.filter(trial__eval_run__name="base").values_list(
            "transport", flat=True
        )
    )
    assert transports == {"mcp"}
    cand = EvalRun.objects.get(name="cand")
    assert cand.trials.filter(trace__isnull=False).count() == 6
    # the closed worlds answer no more
    status, _ = tool_world_http_call(cand_trials[0]["tool_world"])(
        "get_recent_orders", {"customer_id": "C-77"}
    )
    assert status == 401


def test_tool_worlds_need_a_tasks_file(server, capsys):
    code = cli.main(
        ["start", "--name", "x", "--agent-version", "1", "--dataset-version", "worlds-v1",
         "--tool-worlds"]
    )  # fmt: skip
    assert code == 2 and "tasks_file" in capsys.readouterr().err
    assert not EvalRun.objects.filter(name="x").exists()
