"""The tool-world endpoints: starting and finishing a run's worlds, and the plain-HTTP world."""

import json
import threading
import time

import pytest
from django.db import connection
from rest_framework.test import APIClient

from golden.evals.services import eval_run_create
from golden.evals.tags import eval_trials_attach
from golden.models import EvalRun, EvalTrial, ToolWorldCall
from golden.services import dataset_version_create
from tests.factories import TraceFactory
from tests.golden.world_builders import ORDERS, handout, world_example, world_run

pytestmark = pytest.mark.django_db


def _world(token: str | None = None) -> APIClient:
    client = APIClient()
    if token:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


def _path(url: str) -> str:
    return url.replace("http://testserver", "")


def _call(trial: dict, tool: str, body, **headers):
    url = _path(trial["tool_world"]["call_url"].replace("{name}", tool))
    data = body if isinstance(body, str) else json.dumps(body)
    return _world(trial["tool_world"]["token"]).post(
        url, data=data, content_type="application/json", **headers
    )


@pytest.fixture
def started(curator, api_client_for):
    """A run over one example with a world, started through the API with k=2."""
    example = world_example(curator)
    version = dataset_version_create(name="worlds-v1", user=curator, examples=example_qs(example))
    run = eval_run_create(
        name="ci-7", agent_version="2.0.0", dataset_version=version, trials_per_task=2
    )
    response = api_client_for(curator).post(f"/api/eval-runs/{run.pk}/tool-worlds/start/")
    assert response.status_code == 201, response.content
    return run, response.json()["trials"]


def example_qs(example):
    return type(example).objects.filter(pk=example.pk)


def test_start_hands_out_one_trial_per_example_variant_and_trial(started):
    run, trials = started
    # the base world and five variants, two trials each
    assert len(trials) == 12
    assert {(t["variant"], t["trial"]) for t in trials} >= {("", 0), ("no_orders", 1)}
    no_orders = handout(trials, "no_orders", 1)
    assert no_orders["task_key"].endswith("@no_orders") and no_orders["fault_kinds"] == ["empty"]
    assert no_orders["tags"] == {
        "evalsite.eval_run": "ci-7",
        "evalsite.example_key": no_orders["example_key"],
        "evalsite.trial": 1,
        "evalsite.variant": "no_orders",
    }
    world = no_orders["tool_world"]
    assert world["mcp_url"] == f"http://testserver/api/tool-worlds/{no_orders['trial_id']}/mcp"
    # tokens are distinct and only their hashes are stored
    tokens = {t["tool_world"]["token"] for t in trials}
    assert len(tokens) == 12
    stored = set(EvalTrial.objects.filter(eval_run=run).values_list("tool_token_hash", flat=True))
    assert not tokens & stored
    assert EvalRun.objects.get(pk=run.pk).tool_worlds_started_at is not None


def test_start_twice_is_refused_and_needs_a_curator(started, annotator, api_client_for, curator):
    run, _ = started
    again = api_client_for(curator).post(f"/api/eval-runs/{run.pk}/tool-worlds/start/")
    assert again.status_code == 409 and "already started" in again.json()["error"]["message"]
    denied = api_client_for(annotator).post(f"/api/eval-runs/{run.pk}/tool-worlds/start/")
    assert denied.status_code == 403


def test_tools_are_listed_with_schemas(started):
    _, trials = started
    trial = handout(trials)
    response = _world(trial["tool_world"]["token"]).get(_path(trial["tool_world"]["tools_url"]))
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    tools = {t["name"]: t for t in response.json()["tools"]}
    assert tools["get_recent_orders"]["input_schema"]["required"] == ["customer_id"]


def test_world_endpoints_need_the_trials_own_token(started, curator, api_client_for):
    _, trials = started
    trial, other = handout(trials), handout(trials, "no_orders")
    url = _path(trial["tool_world"]["call_url"].replace("{name}", "get_recent_orders"))
    body = {"customer_id": "C-77"}
    # no token, another trial's token, a user's API token: one 401 each, nothing recorded
    for client in (_world(), _world(other["tool_world"]["token"]), api_client_for(curator)):
        response = client.post(url, body, format="json")
        assert response.status_code == 401
        assert response.json()["error"]["fields"] == {
            "authorization": [response.json()["error"]["message"]]
        }
    assert (
        _world(trial["tool_world"]["token"]).get(f"/api/tool-worlds/{10**9}/tools").status_code
        == 401
    )
    assert not ToolWorldCall.objects.exists()


def test_each_fault_kind_over_http(started):
    _, trials = started
    orders = {"customer_id": "C-77"}
    # the base world answers as recorded, and joins the call to the agent's trace
    base = _call(
        handout(trials), "get_recent_orders", orders,
        HTTP_TRACEPARENT="00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    )  # fmt: skip
    assert base.status_code == 200 and base.json() == {"result": ORDERS}
    assert ToolWorldCall.objects.get(tool="get_recent_orders", status=200).trace_id == (
        "4bf92f3577b34da6a3ce929d0e0e4736"
    )
    # empty
    empty = _call(handout(trials, "no_orders"), "get_recent_orders", orders)
    assert empty.status_code == 200 and empty.json() == {"result": {}}
    # error, with its status and message, at the first call
    error = _call(handout(trials, "lookup_down"), "get_recent_orders", orders)
    assert error.status_code == 503
    assert error.json()["error"]["message"] == "orders service unavailable"
    # malformed: a body that is not JSON, declared as JSON, as a broken tool would send
    garbled = _call(handout(trials, "garbled_orders"), "get_recent_orders", orders)
    assert garbled.status_code == 200 and garbled["Content-Type"] == "application/json"
    with pytest.raises(json.JSONDecodeError):
        json.loads(garbled.content)
    # timeout: held, then 504
    began = time.monotonic()
    timeout = _call(handout(trials, "cancel_timeout"), "cancel_order", {"order_id": "A1042"})
    assert timeout.status_code == 504 and time.monotonic() - began >= 0.3
    assert timeout.json()["error"]["code"] == "timeout"
    # contradictory: another tool's answer disagrees with the first
    contradicts = _call(
        handout(trials, "status_disagrees"), "get_order_status", {"order_id": "A1042"}
    )
    assert contradicts.json() == {"result": {"order_id": "A1042", "status": "delivered"}}
    fired = dict(
        ToolWorldCall.objects.exclude(fault=None).values_list("trial__variant", "fault__kind")
    )
    assert fired == {
        "no_orders": "empty",
        "lookup_down": "error",
        "garbled_orders": "malformed",
        "cancel_timeout": "timeout",
        "status_disagrees": "contradictory",
    }


def test_malformed_arguments_and_unknown_tools_are_json_errors_naming_the_field(started):
    _, trials = started
    trial = handout(trials)
    broken = _call(trial, "get_recent_orders", '{"customer_id": ')
    assert broken.status_code == 400
    assert list(broken.json()["error"]["fields"]) == ["arguments"]
    listed = _call(trial, "get_recent_orders", ["C-77"])
    assert listed.status_code == 400 and list(listed.json()["error"]["fields"]) == ["arguments"]
    unknown = _call(trial, "delete_account", {"customer_id": "C-77"})
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "unknown_tool"
    assert list(ToolWorldCall.objects.order_by("sequence").values_list("arguments", flat=True)) == [
        '{"customer_id": ',
        ["C-77"],
        {"customer_id": "C-77"},
    ]


def test_finish_closes_the_worlds(started, curator, api_client_for):
    run, trials = started
    trial = handout(trials)
    closed = api_client_for(curator).post(f"/api/eval-runs/{run.pk}/tool-worlds/finish/")
    assert closed.status_code == 200 and closed.json() == {"closed": 12}
    assert _call(trial, "get_recent_orders", {"customer_id": "C-77"}).status_code == 401


def test_trial_calls_are_listed_for_annotators(started, annotator, api_client_for):
    run, trials = started
    trial = handout(trials, "lookup_down")
    _call(trial, "get_recent_orders", {"customer_id": "C-77"})
    _call(trial, "get_recent_orders", {"customer_id": "C-77"})
    response = api_client_for(annotator).get(
        f"/api/eval-runs/{run.pk}/trials/{trial['trial_id']}/tool-calls/"
    )
    assert response.status_code == 200
    rows = response.json()
    assert [(r["sequence"], r["status"], (r["fault"] or {}).get("kind")) for r in rows] == [
        (1, 503, "error"),
        (2, 200, None),
    ]
    assert rows[1]["returned"] == {"result": ORDERS} and rows[1]["transport"] == "http"


@pytest.mark.django_db(transaction=True)
def test_concurrent_calls_of_one_trial_are_numbered_without_gaps(curator):
    _, trials = world_run(curator)
    trial = handout(trials, "lookup_down")
    statuses = []

    def agent():
        try:
            response = _call(trial, "get_recent_orders", {"customer_id": "C-77"})
            statuses.append(response.status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=agent) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # exactly one call met the first-call error, whichever came first
    assert sorted(statuses) == [200] * 5 + [503]
    sequences = ToolWorldCall.objects.filter(trial_id=trial["trial_id"]).values_list(
        "sequence", flat=True
    )
    assert sorted(sequences) == [1, 2, 3, 4, 5, 6]
    assert ToolWorldCall.objects.get(trial_id=trial["trial_id"], sequence=1).status == 503


def test_a_trace_without_tags_joins_its_trial_through_the_calls_traceparent(started):
    run, trials = started
    trial = handout(trials, "lookup_down")
    traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    _call(trial, "get_recent_orders", {"customer_id": "C-77"}, HTTP_TRACEPARENT=traceparent)
    # an instrumented agent whose exporter did not carry the trial's tags
    trace = TraceFactory(external_id="0af7651916cd43dd8448eb211c80319c")
    run.refresh_from_db()
    counts = eval_trials_attach(run)
    assert counts["joined_by_traceparent"] == 1
    assert EvalTrial.objects.get(pk=trial["trial_id"]).trace == trace
    # joined once: attaching again changes nothing
    assert eval_trials_attach(run)["joined_by_traceparent"] == 0
