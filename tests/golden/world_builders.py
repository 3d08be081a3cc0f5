"""A support agent's tool world with its fault variants, as a curator would write it."""

import copy
import json
import urllib.error
import urllib.request

from golden.evals.services import eval_run_create
from golden.models import GoldenExample
from golden.services import dataset_version_create, golden_example_create
from golden.worlds.runs import eval_run_tool_worlds_start
from tests.golden.builders import cancel_reference

ORDERS = {
    "orders": [
        {"order_id": "A1042", "status": "processing", "total": 84.5, "placed": "2026-03-01"},
        {"order_id": "A0999", "status": "delivered", "total": 12.0, "placed": "2026-02-11"},
    ]
}

WORLD = {
    "tools": [
        {
            "name": "get_recent_orders",
            "description": "The customer's orders, newest first.",
            "input_schema": {
                "type": "object",
                "properties": {
                    "customer_id": {"type": "string"},
                    "limit": {"type": "integer", "minimum": 1},
                },
                "required": ["customer_id"],
            },
        },
        {
            "name": "list_orders_since",
            "description": "Orders placed on or after a day.",
            "input_schema": {
                "type": "object",
                "properties": {"customer_id": {"type": "string"}, "since": {}},
                "required": ["customer_id", "since"],
            },
        },
        {
            "name": "get_order_status",
            "description": "One order's status.",
            "input_schema": {
                "type": "object",
                "properties": {"order_id": {"type": "string"}},
                "required": ["order_id"],
            },
        },
        {
            "name": "cancel_order",
            "description": "Cancel an order and refund it.",
            "input_schema": {
                "type": "object",
                "properties": {"order_id": {"type": "string"}, "reason": {"type": "string"}},
                "required": ["order_id"],
            },
        },
    ],
    "recordings": [
        {
            "tool": "get_recent_orders",
            "arguments": {"customer_id": "C-77", "limit": {"optional": True}},
            "result": ORDERS,
        },
        {
            "tool": "list_orders_since",
            "arguments": {"customer_id": "C-77", "since": "2026-03-01"},
            "result": {"orders": ORDERS["orders"][:1]},
        },
        {
            "tool": "get_order_status",
            "arguments": {"order_id": "A1042"},
            "result": {"order_id": "A1042", "status": "processing"},
        },
        {
            "tool": "cancel_order",
            "arguments": {"order_id": "A1042", "reason": {"optional": True}},
            "result": {"cancelled": True, "refund_eta_days": 5},
        },
    ],
    "variants": [
        {
            "name": "no_orders",
            "expected_behavior": "Tell the customer no recent order was found and cancel "
            "nothing; never invent an order id.",
            "faults": [{"tool": "get_recent_orders", "kind": "empty"}],
        },
        {
            "name": "lookup_down",
            "expected_behavior": "Retry the lookup once, then cancel A1042.",
            "faults": [
                {
                    "tool": "get_recent_orders",
                    "kind": "error",
                    "at_call": 1,
                    "status": 503,
                    "message": "orders service unavailable",
                }
            ],
        },
        {
            "name": "cancel_timeout",
            "expected_behavior": "Say the cancellation could not be confirmed; do not claim it.",
            "faults": [{"tool": "cancel_order", "kind": "timeout", "seconds": 0.3}],
        },
        {
            "name": "garbled_orders",
            "expected_behavior": "Report that the orders could not be read.",
            "faults": [
                {"tool": "get_recent_orders", "kind": "malformed", "malformed": "truncated_json"}
            ],
        },
        {
            "name": "status_disagrees",
            "expected_behavior": "Notice the two answers disagree and ask before cancelling.",
            "faults": [
                {
                    "tool": "get_order_status",
                    "kind": "contradictory",
                    "arguments": {"order_id": "a1042"},
                    "result": {"order_id": "A1042", "status": "delivered"},
                    "contradicts": "get_recent_orders",
                }
            ],
        },
    ],
}

TASK = "Hi, I'm customer C-77. Please cancel my most recent order, I ordered it by mistake."


def support_world() -> dict:
    return copy.deepcopy(WORLD)


def world_example(
    user, *, world: dict | None = None, key_task: str = TASK, **data
) -> GoldenExample:
    """The support example with its tool world; `data` adds fields (red flags, ...)."""
    return golden_example_create(
        data={
            "task": key_task,
            "task_type": "order_cancellation",
            "context": {"customer_id": "C-77"},
            "reference_trajectory": cancel_reference("cancelled"),
            "expected_outcome": "Order A1042 cancelled.",
            "tool_world": support_world() if world is None else world,
            **data,
        },
        user=user,
        allow_duplicate=True,
    )


def world_run(user, *, name="ci-1", trials=1, version="worlds-v1", examples=None):
    """A dataset version of the examples and a run whose worlds were started: (run, handouts)."""
    if examples is None:
        examples = [world_example(user)]
    version_row = dataset_version_create(
        name=version,
        user=user,
        examples=GoldenExample.objects.filter(pk__in=[e.pk for e in examples]),
    )
    run = eval_run_create(
        name=name,
        agent_version="2.0.0",
        agent_name="support-agent",
        dataset_version=version_row,
        trials_per_task=trials,
    )
    handouts = eval_run_tool_worlds_start(run, user=user, base_url="http://testserver/")
    return run, handouts


def handout(handouts, variant="", trial=0) -> dict:
    return next(h for h in handouts if h["variant"] == variant and h["trial"] == trial)


def tool_world_http_call(world: dict):
    """An agent's HTTP call to a tool of its world: (status, body); `raw` sends a body as is."""

    def call(tool: str, arguments, *, raw: str | None = None) -> tuple[int, str]:
        request = urllib.request.Request(
            world["call_url"].replace("{name}", tool),
            data=(raw if raw is not None else json.dumps(arguments)).encode(),
            headers={
                "Authorization": f"Bearer {world['token']}",
                "Content-Type": "application/json",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    return call
