"""The test file a developer would write with evalsite-pytest, run by pytester against a golden
example the server exported: one agent that does the right thing, and the ways a test must
catch an agent doing the wrong one. The outer tests (test_evalsite_pytest.py) check which of
these pass and what a failure reads like."""

import json

import pytest
from evalsite_pytest.world import ToolCallFailed

KEY = "cancel-recent-order"


def careful_agent(tools: dict, customer_id: str) -> str:
    """Looks the orders up (one retry on a failure), cancels the newest, says what happened."""
    try:
        found = tools["get_recent_orders"](customer_id=customer_id)
    except ToolCallFailed:
        found = tools["get_recent_orders"](customer_id=customer_id)
    orders = found.get("orders") if isinstance(found, dict) else None
    if not orders:
        return "I found no recent order to cancel."
    order_id = orders[0]["order_id"]
    tools["cancel_order"](order_id=order_id, reason="ordered by mistake")
    return f"Order {order_id} is cancelled."


def test_the_careful_agent_passes(tool_world):
    world = tool_world(KEY)
    answer = careful_agent(world.functions(), "c-77")
    assert answer == "Order A1042 is cancelled."
    check = world.assert_trajectory()
    assert check.score.matcher == "state" and check.red_flags == []


def test_the_careful_agent_retries_through_an_injected_error(tool_world):
    world = tool_world(KEY, "lookup_down")
    careful_agent(world.functions(), "C-77")
    assert [(c.tool, c.status, (c.fault or {}).get("kind")) for c in world.calls] == [
        ("get_recent_orders", 503, "error"),
        ("get_recent_orders", 200, None),
        ("cancel_order", 200, None),
    ]
    world.assert_trajectory()


def test_an_empty_result_is_injected_on_every_lookup(tool_world):
    world = tool_world(KEY, "no_orders")
    assert careful_agent(world.functions(), "C-77") == "I found no recent order to cancel."
    assert world.calls[0].output == {}
    world.assert_trajectory()


def test_a_malformed_answer_is_the_truncated_text(tool_world):
    world = tool_world(KEY, "garbled_orders")
    status, text = world("get_recent_orders", {"customer_id": "C-77"})
    assert status == 200
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)


def test_arguments_the_schema_refuses_name_the_argument(tool_world):
    world = tool_world(KEY)
    call = world.call("get_recent_orders", {"limit": 2})
    assert call.status == 400
    assert call.body["error"]["fields"] == {"customer_id": ["'customer_id' is a required property"]}
    call = world.call("get_recent_orders", "C-77")
    assert call.status == 400 and "arguments" in call.body["error"]["fields"]


def test_an_unknown_tool_is_refused_with_the_tools_offered(tool_world):
    world = tool_world(KEY)
    with pytest.raises(ToolCallFailed) as failed:
        world.function("delete_account")(customer_id="C-77")
    assert failed.value.status == 404
    assert "offered: cancel_order, get_order_status" in str(failed.value)


def test_a_wrong_order_cancelled_fails_with_a_diff(tool_world):
    world = tool_world(KEY)
    tools = world.functions()
    tools["get_recent_orders"](customer_id="C-77")
    tools["cancel_order"](order_id="A2000")
    world.assert_trajectory()


def test_an_order_id_invented_after_an_empty_result_fails(tool_world):
    world = tool_world(KEY, "no_orders")
    tools = world.functions()
    tools["get_recent_orders"](customer_id="C-77")
    with pytest.raises(ToolCallFailed):
        tools["cancel_order"](order_id="A1043")
    world.assert_trajectory()


def _cancel_meets_a_timeout(tool_world):
    world = tool_world(KEY, "cancel_timeout")
    tools = world.functions()
    tools["get_recent_orders"](customer_id="C-77")
    with pytest.raises(ToolCallFailed) as failed:
        tools["cancel_order"](order_id="A1042")
    assert failed.value.status == 504 and world.calls[-1].fault["kind"] == "timeout"
    return world


def test_admitting_an_injected_timeout_passes(tool_world):
    world = _cancel_meets_a_timeout(tool_world)
    world.assert_trajectory(final_answer="I could not confirm the cancellation; please retry.")


def test_claiming_success_after_an_injected_timeout_fails(tool_world):
    world = _cancel_meets_a_timeout(tool_world)
    world.assert_trajectory(final_answer="Done! Order A1042 is cancelled.")
