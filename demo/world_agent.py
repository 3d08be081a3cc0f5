"""The demo's support agent: scripted, no model, speaking MCP to one trial's served tool world.

It connects with the official `mcp` client over streamable HTTP, lists the tools the world
offers, and cancels the customer's latest order. Version 1.4.0 reads the order id from the
lookup, retries a failed lookup once and says plainly when it found nothing or could not look;
1.5.0 does the same except after an empty lookup, where it guesses the next order id and reports
the cancellation as done: the mistake the demo's gate exists to catch. A trial returns the span
tree the agent reports, tagged with its trial, as any instrumented agent would send it.
"""

from __future__ import annotations

import hashlib
import json
import logging
from datetime import UTC, datetime

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

AGENT = "support-agent"
# The id 1.5.0 makes up when the lookup is empty: the one after the customer's usual orders.
GUESSED_ORDER_ID = "A1043"
CALL_TIMEOUT_SECONDS = 30


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _read(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


class _WorldTools:
    """Calls the world's tools over an open MCP session and keeps each call as a tool span."""

    def __init__(self, client: Client):
        self.client = client
        self.spans: list[dict] = []

    async def call(self, tool: str, arguments: dict) -> tuple[bool, object]:
        """(failed, what came back) of one call; a tool's failure arrives as `is_error`."""
        started = _now()
        result = await self.client.call_tool(tool, arguments)
        text = "".join(getattr(part, "text", "") for part in result.content)
        output = _read(text)
        span = {
            "name": tool,
            "type": "tool",
            "input": arguments,
            "output": output,
            "start_time": started,
            "end_time": _now(),
        }
        if result.is_error:
            span["status"], span["error"] = "error", text
        self.spans.append(span)
        return result.is_error, output


def _orders(output) -> list[dict]:
    result = output.get("result") if isinstance(output, dict) else None
    orders = result.get("orders") if isinstance(result, dict) else None
    return [o for o in orders if isinstance(o, dict)] if isinstance(orders, list) else []


async def _cancel_latest(tools: _WorldTools, customer_id: str, *, guesses: bool) -> str:
    lookup = {"customer_id": customer_id}
    failed, output = await tools.call("get_recent_orders", lookup)
    if failed:
        failed, output = await tools.call("get_recent_orders", lookup)
    if failed:
        return (
            "I couldn't reach the order service just now, so nothing was cancelled. "
            "Please try again in a few minutes."
        )
    orders = _orders(output)
    if not orders and not guesses:
        return (
            f"I couldn't find any recent order for {customer_id}, so nothing was cancelled. "
            "Could you check the order number on your confirmation email?"
        )
    order_id = orders[0].get("order_id", "") if orders else GUESSED_ORDER_ID
    failed, output = await tools.call(
        "cancel_order", {"order_id": order_id, "reason": "placed by mistake"}
    )
    result = output.get("result") if isinstance(output, dict) else None
    if failed and not guesses:
        return f"I could not cancel order {order_id}; nothing was changed."
    days = result.get("refund_days", 5) if isinstance(result, dict) else 5
    return f"Your latest order {order_id} is cancelled; the refund reaches you in {days} days."


async def _trial(handout: dict, version: str, guesses: bool) -> dict:
    world = handout["tool_world"]
    headers = {"Authorization": f"Bearer {world['token']}"}
    started = _now()
    async with (
        httpx2.AsyncClient(headers=headers, timeout=CALL_TIMEOUT_SECONDS) as http,
        Client(streamable_http_client(world["mcp_url"], http_client=http)) as client,
    ):
        offered = (await client.list_tools()).tools
        tools = _WorldTools(client)
        answer = await _cancel_latest(
            tools, handout["context"].get("customer_id", ""), guesses=guesses
        )
    seed = f"{handout['tags']['evalsite.eval_run']}/{handout['trial_id']}"
    return {
        "trace_id": hashlib.sha256(seed.encode()).hexdigest()[:32],
        "name": f"invoke_agent {AGENT}",
        "type": "agent",
        "task": handout["task"],
        "final_answer": answer,
        "agent_name": AGENT,
        "agent_version": version,
        "context": {**handout["context"], **handout["tags"]},
        "available_tools": [
            {"name": t.name, "description": t.description or "", "input_schema": t.input_schema}
            for t in offered
        ],
        "input": handout["task"],
        "output": answer,
        "start_time": started,
        "end_time": _now(),
        "children": tools.spans,
    }


def demo_agent_trial(handout: dict, *, version: str, guesses: bool) -> dict:
    """Run the agent on one handed-out trial over MCP; returns its span-tree trace."""
    # One log line per HTTP request would bury the server's own log under the agent's.
    logging.getLogger("httpx2").setLevel(logging.WARNING)
    return anyio.run(_trial, handout, version, guesses)
