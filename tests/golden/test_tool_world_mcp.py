"""The served tool world through the official MCP client, over streamable HTTP on 127.0.0.1."""

import json
from concurrent.futures import ThreadPoolExecutor

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from accounts.roles import CURATOR
from golden.models import ToolWorldCall
from tests.factories import UserFactory
from tests.golden.world_builders import ORDERS, handout, world_run

pytestmark = pytest.mark.django_db(transaction=True)


def _session(url: str, token: str | None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = httpx2.AsyncClient(headers=headers, timeout=30)
    return Client(streamable_http_client(url, http_client=http)), http


def _run(function, *args):
    """The client's event loop on a thread of its own: a loop another test left running in
    this thread (Django runs async views on one) must not stop the agent from starting."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, function, *args).result()


async def _agent(url: str, token: str) -> dict:
    """What an MCP agent does: list the tools, look the orders up (the first lookup fails in
    this variant, so it retries), then cancel."""
    client, http = _session(url, token)
    async with http, client:
        tools = await client.list_tools()
        failed = await client.call_tool("get_recent_orders", {"customer_id": "C-77"})
        retried = await client.call_tool("get_recent_orders", {"customer_id": "C-77"})
        unknown = await client.call_tool("refund_order", {"order_id": "A1042"})
        cancelled = await client.call_tool("cancel_order", {"order_id": "A1042"})
    return {
        "tools": {t.name: t.input_schema for t in tools.tools},
        "failed": failed,
        "retried": retried,
        "unknown": unknown,
        "cancelled": cancelled,
    }


def test_mcp_agent_meets_the_variants_fault_and_every_call_is_recorded(live_server):
    # given a run whose worlds were started, and the lookup_down variant's trial
    curator = UserFactory(roles=[CURATOR])
    _, handouts = world_run(curator)
    trial = handout(handouts, "lookup_down")
    mcp_url = trial["tool_world"]["mcp_url"].replace("http://testserver", live_server.url)
    # when an agent speaking MCP runs against it
    seen = _run(_agent, mcp_url, trial["tool_world"]["token"])
    # then the tools are listed with the world's schemas
    assert set(seen["tools"]) == {
        "get_recent_orders",
        "list_orders_since",
        "get_order_status",
        "cancel_order",
    }
    assert seen["tools"]["cancel_order"]["required"] == ["order_id"]
    # and the injected error reaches the agent as a tool error, the retry as the recording
    assert seen["failed"].is_error
    assert json.loads(seen["failed"].content[0].text)["error"]["message"] == (
        "orders service unavailable"
    )
    assert not seen["retried"].is_error
    assert json.loads(seen["retried"].content[0].text) == {"result": ORDERS}
    assert seen["unknown"].is_error and "unknown_tool" in seen["unknown"].content[0].text
    assert json.loads(seen["cancelled"].content[0].text)["result"]["cancelled"] is True
    # and every call is recorded against the trial, with the fault that fired
    calls = list(
        ToolWorldCall.objects.filter(trial_id=trial["trial_id"])
        .order_by("sequence")
        .values_list("tool", "status", "transport")
    )
    assert calls == [
        ("get_recent_orders", 503, "mcp"),
        ("get_recent_orders", 200, "mcp"),
        ("refund_order", 404, "mcp"),
        ("cancel_order", 200, "mcp"),
    ]
    assert ToolWorldCall.objects.get(trial_id=trial["trial_id"], sequence=1).fault["kind"] == (
        "error"
    )


async def _list_tools(url, token):
    client, http = _session(url, token)
    async with http, client:
        return await client.list_tools()


def _raw_post(url: str, token: str | None) -> tuple[int, dict]:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    response = httpx2.post(url, json=body, headers=headers, timeout=30)
    return response.status_code, response.json()


def test_mcp_endpoint_refuses_without_the_trials_token(live_server):
    curator = UserFactory(roles=[CURATOR])
    _, handouts = world_run(curator)
    base, other = handout(handouts), handout(handouts, "no_orders")
    url = base["tool_world"]["mcp_url"].replace("http://testserver", live_server.url)
    # no token, another trial's token: one 401 naming the header, as JSON
    for token in (None, other["tool_world"]["token"]):
        status, body = _raw_post(url, token)
        assert status == 401
        assert body["error"]["code"] == "not_authenticated"
        assert "authorization" in body["error"]["fields"]
    # and the MCP client gives up instead of talking to someone else's world
    with pytest.raises(Exception):  # noqa: B017, PT011 - the SDK wraps the 401 in a group
        _run(_list_tools, url, other["tool_world"]["token"])
    assert not ToolWorldCall.objects.exists()
