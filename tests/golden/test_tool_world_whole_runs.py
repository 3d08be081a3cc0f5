"""Whole tool-world eval runs against a live server, through the API a CI job uses: start the
worlds, agents speaking MCP (the official client) and plain HTTP run every trial, send their
traces, finish, score. What agents get wrong is part of a run: malformed arguments, unknown
tools, trials run at once, an agent that never calls the world."""

import json
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from accounts.models import ApiToken
from accounts.roles import CURATOR
from golden.evals.services import eval_run_create
from golden.models import EvalRun, EvalTrial, GoldenExample
from golden.services import dataset_version_create
from tests.factories import UserFactory
from tests.golden.world_agents import careful, idle, run_agent
from tests.golden.world_builders import WORLD, tool_world_http_call, world_example

pytestmark = pytest.mark.django_db(transaction=True)
VARIANT_FAULTS = {v["name"]: v["faults"] for v in WORLD["variants"]}


class Site:
    """The evalsite API as a CI job calls it: JSON over HTTP with a curator's token."""

    def __init__(self, url: str, token: str):
        self.url, self.token = url, token

    def __call__(self, method: str, path: str, body=None) -> tuple[int, dict | list]:
        request = urllib.request.Request(
            f"{self.url}{path}",
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"null")


@pytest.fixture
def site(live_server):
    curator = UserFactory(username="ci", roles=[CURATOR])
    example = world_example(curator)
    dataset_version_create(
        name="worlds-v1", user=curator, examples=GoldenExample.objects.filter(pk=example.pk)
    )
    return Site(live_server.url, ApiToken.generate(curator, "ci")[1])


def _start(site: Site, name: str, trials: int = 1) -> tuple[EvalRun, list[dict]]:
    run = eval_run_create(
        name=name, agent_version="2.0.0", dataset_version="worlds-v1", trials_per_task=trials
    )
    status, body = site("POST", f"/api/eval-runs/{run.pk}/tool-worlds/start/")
    assert status == 201, body
    live = site.url
    for handout in body["trials"]:
        world = handout["tool_world"]
        for key in ("tools_url", "call_url", "mcp_url"):
            world[key] = world[key].replace("http://testserver", live)
    return run, body["trials"]


def _finish(site: Site, run: EvalRun, handouts: list[dict], traces: list[dict]) -> dict:
    for trace in traces:
        status, body = site("POST", "/api/traces/", trace)
        assert status in (200, 201), body
    status, body = site("POST", f"/api/eval-runs/{run.pk}/tool-worlds/finish/")
    assert status == 200 and body["closed"] == len(handouts), body
    status, body = site("POST", f"/api/eval-runs/{run.pk}/score/", {"use_llm": False})
    assert status == 200, body
    return body


async def _mcp_session(world: dict, script):
    headers = {"Authorization": f"Bearer {world['token']}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(world["mcp_url"], http_client=http)) as client,
    ):
        return await script(client)


def _mcp_agent(agent, handout: dict) -> dict:
    """Run a scripted agent over one MCP session, each of its tool calls a `tools/call`."""

    async def script(client):
        async def call(tool, arguments):
            result = await client.call_tool(tool, arguments)
            text = result.content[0].text
            return (500 if result.is_error else 200), text

        # The agent is plain code that calls back synchronously; the session stays on the loop.
        def sync_call(tool, arguments):
            return anyio.from_thread.run(call, tool, arguments)

        return await anyio.to_thread.run_sync(lambda: run_agent(agent, sync_call, handout))

    return anyio.run(_mcp_session, handout["tool_world"], script)


def _answers(text: str):
    """An agent whose calls were made above, by hand: its trace carries only its answer."""
    return lambda call, customer_id: text


def _pooled(function, items, workers: int = 1) -> list:
    # Each agent's event loop on a thread of its own, as separate agent processes would.
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(function, items))


def test_malformed_arguments_and_unknown_tools_over_mcp_and_http_in_a_whole_run(site):
    # given a started run, k=1: the base world and five variants
    run, handouts = _start(site, "ci-bad-args")
    base = next(h for h in handouts if h["variant"] == "")
    empty = next(h for h in handouts if h["variant"] == "no_orders")

    # when an MCP agent first sends arguments the schema refuses and calls a tool not offered
    async def confused(client):
        wrong_type = await client.call_tool("get_recent_orders", {"customer_id": 77})
        missing = await client.call_tool("get_recent_orders", {"limit": 2})
        unknown = await client.call_tool("refund_order", {"order_id": "A1042"})
        found = await client.call_tool("get_recent_orders", {"customer_id": "C-77"})
        done = await client.call_tool("cancel_order", {"order_id": "A1042"})
        return [wrong_type, missing, unknown, found, done]

    mcp = _pooled(lambda h: anyio.run(_mcp_session, h["tool_world"], confused), [base])[0]
    # then each mistake comes back as a tool error naming what was wrong, and the agent goes on
    texts = [json.loads(r.content[0].text) for r in mcp]
    assert [r.is_error for r in mcp] == [True, True, True, False, False]
    assert texts[0]["error"]["fields"] == {"customer_id": ["77 is not of type 'string'"]}
    assert "customer_id" in texts[1]["error"]["fields"]
    assert texts[2]["error"]["code"] == "unknown_tool" and "cancel_order" in json.dumps(texts[2])
    assert texts[4]["result"]["cancelled"] is True

    # when a plain-HTTP agent sends a body that is not JSON, then a JSON list, then no such tool
    call = tool_world_http_call(empty["tool_world"])
    not_json = call("get_recent_orders", None, raw="customer_id=C-77")
    a_list = call("get_recent_orders", ["C-77"])
    no_tool = call("lookup_orders", {"customer_id": "C-77"})
    # then 400 and 404, as JSON that names the argument or lists the tools offered
    assert not_json[0] == 400 and "arguments" in json.loads(not_json[1])["error"]["fields"]
    assert a_list[0] == 400 and "arguments" in json.loads(a_list[1])["error"]["fields"]
    assert no_tool[0] == 404 and "get_recent_orders" in no_tool[1]
    # and the variant's empty lookup still fires on the first call the schema accepted
    status, text = call("get_recent_orders", {"customer_id": "C-77"})
    assert status == 200 and json.loads(text)["result"] in ({}, {"orders": []})

    # when every trial's trace is sent and the run finishes
    by_hand = {
        base["trial_id"]: _answers("Order A1042 is cancelled; the refund takes 5 days."),
        empty["trial_id"]: _answers(
            "Sorry, I couldn't find a recent order; nothing was cancelled."
        ),
    }
    no_call = lambda tool, arguments: (500, "{}")  # noqa: E731 - never called
    traces = [
        run_agent(by_hand[h["trial_id"]], no_call, h)
        if h["trial_id"] in by_hand
        else run_agent(careful, tool_world_http_call(h["tool_world"]), h)
        for h in handouts
    ]
    metrics = _finish(site, run, handouts, traces)
    # then the run is scored over all six tasks, and each trial counts its refused calls
    assert metrics["metrics"]["overall"]["tasks"] == 6
    world = EvalTrial.objects.get(pk=base["trial_id"]).metrics["tool_world"]
    assert (world["invalid_argument_calls"], world["unknown_tool_calls"], world["calls"]) == (
        2,
        1,
        5,
    )
    world = EvalTrial.objects.get(pk=empty["trial_id"]).metrics["tool_world"]
    assert (world["invalid_argument_calls"], world["unknown_tool_calls"]) == (2, 1)
    assert world["faults_fired"] == [{"sequence": 4, "tool": "get_recent_orders", "kind": "empty"}]
    # and the calls, refused ones included, are listed for the trial as the world answered them
    status, calls = site("GET", f"/api/eval-runs/{run.pk}/trials/{empty['trial_id']}/tool-calls/")
    assert status == 200
    assert [(c["tool"], c["status"], c["transport"]) for c in calls] == [
        ("get_recent_orders", 400, "http"),
        ("get_recent_orders", 400, "http"),
        ("lookup_orders", 404, "http"),
        ("get_recent_orders", 200, "http"),
    ]
    assert calls[0]["arguments"] == "customer_id=C-77"  # kept as sent


def _world_calls(handout: dict) -> list[tuple]:
    trial = EvalTrial.objects.get(pk=handout["trial_id"])
    return list(trial.tool_calls.order_by("sequence").values_list("sequence", "tool", "fault"))


def test_concurrent_trials_each_meet_only_their_own_world(site):
    # given a run with three trials of each of the six tasks
    run, handouts = _start(site, "ci-concurrent", trials=3)
    assert len(handouts) == 18

    # when all eighteen agents run at once, half over MCP and half over plain HTTP
    def one(handout):
        if handout["trial"] % 2:
            return run_agent(careful, tool_world_http_call(handout["tool_world"]), handout)
        return _mcp_agent(careful, handout)

    traces = _pooled(one, handouts, workers=6)
    metrics = _finish(site, run, handouts, traces)
    # then every trial's calls are numbered 1..n, and only its own variant's fault fired
    for handout in handouts:
        calls = _world_calls(handout)
        assert [c[0] for c in calls] == list(range(1, len(calls) + 1)), handout
        fired = [(tool, fault["kind"]) for _, tool, fault in calls if fault]
        faults = VARIANT_FAULTS.get(handout["variant"], [])
        assert {(tool, kind) for tool, kind in fired} <= {(f["tool"], f["kind"]) for f in faults}
        if handout["variant"] == "lookup_down":
            # the error fires on the trial's own first lookup only, whatever the others did
            assert [c[1] for c in calls] == [
                "get_recent_orders",
                "get_recent_orders",
                "cancel_order",
            ]
            assert fired == [("get_recent_orders", "error")]
    transports = set(run.trials.values_list("tool_calls__transport", flat=True))
    assert transports == {"mcp", "http"}
    # and the run is scored with three trials of each task and of each fault kind it met
    overall = metrics["metrics"]["overall"]
    assert overall["tasks"] == 6 and overall["missing_trials"] == 0
    # (the careful agent never asks for the status, so it never meets the contradiction)
    assert {kind: row["trials"] for kind, row in overall["fault_kinds"].items()} == {
        "empty": 3,
        "error": 3,
        "malformed": 3,
        "timeout": 3,
    }
    assert not run.trials.filter(trace__isnull=True).exists()


def test_an_agent_that_never_calls_the_world_is_scored_with_faults_that_never_fired(site):
    # given a started run
    run, handouts = _start(site, "ci-idle")
    # when the agent answers every task without calling a tool
    traces = [run_agent(idle, tool_world_http_call(h["tool_world"]), h) for h in handouts]
    _finish(site, run, handouts, traces)
    # then every trial is scored: no call served, each variant's faults listed as never fired
    for trial in run.trials.all():
        world = trial.metrics["tool_world"]
        assert world["calls"] == 0 and world["faults_fired"] == []
        expected = [
            {"tool": f["tool"], "kind": f["kind"]} for f in VARIANT_FAULTS.get(trial.variant, [])
        ]
        assert world["faults_not_fired"] == expected
        # no fault-aware flag: nothing was injected, so nothing was invented after it
        kinds = {flag["kind"] for flag in trial.metrics["red_flags"]}
        assert not kinds & {"invented_after_fault", "success_after_fault"}
    # and the base world's trial fails: the agent never looked the order up
    base = run.trials.get(variant="")
    assert base.passed is False and base.metrics["fail_reasons"]
