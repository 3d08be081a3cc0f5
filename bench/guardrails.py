"""Server time of POST /api/guardrails/check for a 50-step trajectory (target: p99 < 10 ms).

Run: .venv/bin/python bench/guardrails.py [--requests 500] [--steps 50] [--database-url URL]
(throwaway SQLite unless a database URL is given). Requests go through the whole Django stack
in-process (middleware, token auth, parsing, checks, JSON), so the time is the server's own,
without the network. Two shapes: a span tree whose LLM spans resend the growing conversation
(as OpenTelemetry GenAI instrumentations export it), and an Anthropic transcript. Prints
p50/p99 of the request and of the view (its Server-Timing), and the load average.
"""

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TARGET_P99_MS = 10.0


def conversation_tree(steps: int) -> dict:
    """A support agent's span tree: per step an LLM call (given the whole conversation so far)
    and the tool call it asked for."""
    messages: list[dict] = [
        {"role": "user", "content": "Customer C-77 here. My order A1042 arrived damaged."}
    ]
    children = []
    for step in range(steps):
        call = {"name": "get_order_line", "input": {"order_id": "A1042", "line": step}}
        output = {"line": step, "sku": f"SKU-{1000 + step}", "status": "delivered"}
        children.append(
            {
                "name": "chat claude-sonnet-4-5",
                "type": "llm",
                "input": {"messages": list(messages)},
                "output": {"role": "assistant", "content": f"Checking line {step}."},
            }
        )
        children.append({"name": call["name"], "type": "tool", **call, "output": output})
        messages.append({"role": "assistant", "content": [{"type": "tool_use", **call}]})
        messages.append({"role": "user", "content": [{"type": "tool_result", "content": "ok"}]})
    return {
        "name": "support-agent",
        "type": "agent",
        "task": "Customer C-77: order A1042 arrived damaged, refund the damaged lines.",
        "context": {"customer_id": "C-77"},
        "children": children,
    }


def tool_tree(steps: int) -> dict:
    """The tool calls alone, as an agent that keeps its own step list would send them."""
    tree = conversation_tree(steps)
    tree["children"] = [child for child in tree["children"] if child["type"] == "tool"]
    return tree


def transcript(steps: int) -> dict:
    messages: list[dict] = [{"role": "user", "content": "Refund damaged lines of order A1042."}]
    for step in range(steps):
        call_id = f"toolu_{step:03d}"
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": call_id,
                        "name": "get_order_line",
                        "input": {"order_id": "A1042", "line": step},
                    }
                ],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": call_id,
                        "content": json.dumps({"line": step, "sku": f"SKU-{1000 + step}"}),
                    }
                ],
            }
        )
    return {"format": "anthropic", "messages": messages}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def measure(client, token: str, payload: dict, requests: int):
    """Wall time per request, the view's own time, and the CPU time per request (which a
    loaded machine inflates less than wall time)."""
    body = json.dumps(payload)
    walls, views, cpus = [], [], []
    for index in range(requests + 20):
        cpu_started = time.process_time()
        started = time.perf_counter()
        response = client.post(
            "/api/guardrails/check",
            body,
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {token}",
        )
        wall = (time.perf_counter() - started) * 1000
        cpu = (time.process_time() - cpu_started) * 1000
        assert response.status_code == 200, response.content[:300]
        if index >= 20:  # warm-up requests left out
            walls.append(wall)
            cpus.append(cpu)
            views.append(float(response["Server-Timing"].split("dur=")[1]))
    return walls, views, cpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--database-url", default="")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    os.environ["DATABASE_URL"] = (
        args.database_url or f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"
    )
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client

    from accounts.models import ApiToken
    from accounts.roles import ANNOTATOR
    from tests.factories import UserFactory

    call_command("migrate", verbosity=0)
    # As gunicorn.conf.py sets each web worker: start-up objects frozen, gen-0 threshold raised.
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    user = UserFactory(username=f"bench-agent-{time.time_ns()}", roles=[ANNOTATOR])
    _, token = ApiToken.generate(user, "bench")
    client = Client()
    next_call = {"tool": "issue_refund", "input": {"order_id": "A1042", "line": 3}}
    shapes = {
        "span tree of tool calls": tool_tree(args.steps),
        "span tree + resent conversation": conversation_tree(args.steps),
        "anthropic transcript": transcript(args.steps),
    }
    print(f"{args.steps}-step trajectory, {args.requests} requests each, next call included")
    for name, trajectory in shapes.items():
        payload = {"project": "default", "trajectory": trajectory, "next_call": next_call}
        walls, views, cpus = measure(client, token, payload, args.requests)
        p99 = percentile(walls, 0.99)
        print(
            f"  {name:32s} ({len(json.dumps(payload)) // 1024} KiB)\n"
            f"    request p50 {statistics.median(walls):6.2f} ms  p99 {p99:6.2f} ms"
            f"  p99/target {p99 / TARGET_P99_MS:.2f}\n"
            f"    view    p50 {statistics.median(views):6.2f} ms"
            f"  p99 {percentile(views, 0.99):6.2f} ms\n"
            f"    CPU     p50 {statistics.median(cpus):6.2f} ms"
            f"  p99 {percentile(cpus, 0.99):6.2f} ms"
        )
    print("load average:", Path("/proc/loadavg").read_text().strip())


if __name__ == "__main__":
    main()
