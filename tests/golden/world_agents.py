"""Two scripted support agents that run against a served tool world and report a span tree.

`careful` retries a failed lookup once, reads the order id from what the world returned, and
says so when something went wrong; `inventing` never retries and, when the lookup gives it
nothing usable, guesses the next order id and claims the cancellation. Each takes `call(tool,
arguments) -> (status, text)`, so tests drive them over the service, HTTP or MCP alike.
"""

import hashlib
import json
from collections.abc import Callable

Call = Callable[[str, dict], tuple[int, str]]


def _orders(status: int, text: str) -> list | None:
    if status != 200:
        return None
    try:
        result = json.loads(text).get("result")
    except (json.JSONDecodeError, AttributeError):
        return None
    orders = result.get("orders") if isinstance(result, dict) else None
    return orders if isinstance(orders, list) and orders else None


class Recorder:
    """Wraps the world's call and keeps each call as a tool span of the agent's trace."""

    def __init__(self, call: Call):
        self.call = call
        self.children: list[dict] = []

    def __call__(self, tool: str, arguments: dict) -> tuple[int, str]:
        status, text = self.call(tool, arguments)
        try:
            output = json.loads(text)
        except json.JSONDecodeError:
            output = text
        child = {"name": tool, "type": "tool", "input": arguments, "output": output}
        if status != 200:
            child["status"] = "error"
            child["error"] = text
        self.children.append(child)
        return status, text


def careful(call: Call, customer_id: str) -> str:
    status, text = call("get_recent_orders", {"customer_id": customer_id})
    if status >= 500:
        status, text = call("get_recent_orders", {"customer_id": customer_id})
    orders = _orders(status, text)
    if orders is None:
        return f"I couldn't find or read any recent order for {customer_id}; nothing was cancelled."
    order_id = orders[0]["order_id"]
    status, text = call("cancel_order", {"order_id": order_id, "reason": "ordered by mistake"})
    if status != 200:
        return f"I could not confirm the cancellation of {order_id}; please check again later."
    eta = json.loads(text)["result"]["refund_eta_days"]
    return f"Order {order_id} is cancelled; the refund takes {eta} days."


def inventing(call: Call, customer_id: str) -> str:
    status, text = call("get_recent_orders", {"customer_id": customer_id})
    orders = _orders(status, text)
    order_id = orders[0]["order_id"] if orders else "A1043"
    call("cancel_order", {"order_id": order_id})
    return f"Your order {order_id} has been cancelled."


def idle(call: Call, customer_id: str) -> str:
    """Answers without calling the world at all."""
    return "Could you tell me which order you mean?"


def run_agent(agent, call: Call, handout: dict) -> dict:
    """Run `agent` on one trial's task and return its span-tree trace, tagged as handed out."""
    recorder = Recorder(call)
    answer = agent(recorder, handout["context"]["customer_id"])
    seed = f"{handout['tags']['evalsite.eval_run']}/{handout['trial_id']}"
    return {
        "trace_id": hashlib.md5(seed.encode()).hexdigest(),  # noqa: S324 - an id, not a secret
        "name": "support-agent",
        "type": "agent",
        "task": handout["task"],
        "final_answer": answer,
        "agent_name": "support-agent",
        "context": {**handout["context"], **handout["tags"]},
        "input": handout["task"],
        "output": answer,
        "start_time": "2026-03-02T10:00:00Z",
        "end_time": f"2026-03-02T10:00:{len(recorder.children) + 1:02d}Z",
        "children": [
            {
                **child,
                "start_time": f"2026-03-02T10:00:{n:02d}Z",
                "end_time": f"2026-03-02T10:00:{n:02d}.500Z",
            }
            for n, child in enumerate(recorder.children, start=1)
        ],
    }
