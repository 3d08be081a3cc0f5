"""Server time of POST /api/guardrails/check for a 50-step trajectory under load (target: p99
under 10 ms), this code against an earlier commit's, in the same run.

Run: .venv/bin/python bench/guardrails.py [--clients 2] [--requests 150] [--database-url URL]
(a throwaway SQLite file unless a database URL is given). Per tree (`--before`, `main` by
default, unpacked with `git archive`, then this one) it starts `gunicorn evalsite.wsgi` with two
workers on 127.0.0.1 and has `--clients` concurrent clients send `--requests` checks each, per
trajectory shape. Server time is gunicorn's own request time from its access log (parsing,
middleware, auth, checks, JSON; not the wait in the listen queue), and server CPU comes from
the view's Server-Timing. Prints p50/p95/p99 of each, the client's round trip, and the load
average. Three shapes: a span tree of tool calls, one whose LLM spans resend the growing
conversation (as OpenTelemetry GenAI instrumentations export it), and an Anthropic transcript.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from served import wait_answered
from trees import trees_compared

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


def gunicorn_start(tree: Path, port: int, workers: int, log: Path, env: dict):
    # The shape and phase of each request come back in the access log, with gunicorn's request
    # time in microseconds and the view's Server-Timing.
    log_format = '%({x-bench-shape}i)s %({x-bench-phase}i)s %(s)s %(D)s "%({server-timing}o)s"'
    command = [sys.executable, "-m", "gunicorn", "evalsite.wsgi", "-w", str(workers)]
    command += ["-b", f"127.0.0.1:{port}", "--access-logfile", str(log)]
    command += ["--access-logformat", log_format]
    server = subprocess.Popen(
        command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}/login/"
    try:
        wait_answered(server, url, time.perf_counter(), 120, f"gunicorn in {tree}")
    except RuntimeError:
        if server.poll() is not None:
            raise SystemExit(f"gunicorn in {tree} exited") from None
        server.terminate()
        raise SystemExit(f"gunicorn in {tree} did not answer") from None
    return server


def client_loop(url: str, body: bytes, headers: dict, count: int, times: list[float]) -> None:
    for _ in range(count):
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        started = time.perf_counter()
        with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310 - local
            response.read()
            assert response.status == 200
        times.append((time.perf_counter() - started) * 1000)


def load_run(url: str, body: bytes, headers: dict, clients: int, count: int) -> list[float]:
    """`clients` threads sending `count` requests each, at once; their round trips in ms."""
    times: list[float] = []
    threads = [
        threading.Thread(target=client_loop, args=(url, body, headers, count, times))
        for _ in range(clients)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return times


def server_times(log: Path, shape: str) -> tuple[list[float], list[float]]:
    """(request ms, view CPU ms) of the measured requests of one shape, from the access log."""
    walls, cpus = [], []
    for line in log.read_text().splitlines():
        fields = line.split(" ", 4)
        if len(fields) < 5 or fields[0] != shape or fields[1] != "measure":
            continue
        walls.append(int(fields[3]) / 1000)
        timing = fields[4].strip('"')
        if "cpu;dur=" in timing:
            cpus.append(float(timing.split("cpu;dur=")[1].split(",")[0]))
    return walls, cpus


def spread(values: list[float]) -> str:
    if not values:
        return "   (not reported)"
    return (
        f"p50 {statistics.median(values):6.2f}  p95 {percentile(values, 0.95):6.2f}  "
        f"p99 {percentile(values, 0.99):6.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=150, help="per client and shape")
    # One client a worker keeps each busy; more, on the same cores, measures the clients too.
    parser.add_argument("--clients", type=int, default=2, help="concurrent clients")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--before", default="main", help="the earlier commit; '' skips it")
    parser.add_argument("--port", type=int, default=8221)
    parser.add_argument("--database-url", default="")
    args = parser.parse_args()
    database_url = args.database_url or f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL"}}
    env.update(
        DATABASE_URL=database_url,
        DJANGO_SETTINGS_MODULE="evalsite.settings",
        EVALSITE_VAR_DIR=tempfile.mkdtemp(prefix="evalsite-bench-var-"),
        ALLOWED_HOSTS="127.0.0.1,testserver",
        LOG_LEVEL="WARNING",
    )
    os.environ.update(env)
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    from django.core.management import call_command

    from accounts.models import ApiToken
    from accounts.roles import ANNOTATOR
    from tests.factories import UserFactory

    call_command("migrate", verbosity=0)
    user = UserFactory(username=f"bench-agent-{time.time_ns()}", roles=[ANNOTATOR])
    _, token = ApiToken.generate(user, "bench")
    next_call = {"tool": "issue_refund", "input": {"order_id": "A1042", "line": 3}}
    shapes = {
        "tools": ("span tree of tool calls", tool_tree(args.steps)),
        "conversation": ("span tree + resent conversation", conversation_tree(args.steps)),
        "transcript": ("anthropic transcript", transcript(args.steps)),
    }
    trees = trees_compared(args.before)
    print(
        f"{args.steps}-step trajectory, next call included; gunicorn -w {args.workers}, "
        f"{args.clients} concurrent clients x {args.requests} requests per shape; "
        f"before = {args.before or '-'}; {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    url = f"http://127.0.0.1:{args.port}/api/guardrails/check"
    p99s: dict[tuple[str, str], float] = {}
    for label, tree in trees.items():
        log = Path(tempfile.mkdtemp(prefix="evalsite-bench-log-")) / "access.log"
        server = gunicorn_start(tree, args.port, args.workers, log, env)
        try:
            for shape, (title, trajectory) in shapes.items():
                payload = {"project": "default", "trajectory": trajectory, "next_call": next_call}
                body = json.dumps(payload).encode()
                headers = {
                    "Content-Type": "application/json",
                    "Authorization": f"Bearer {token}",
                    "x-bench-shape": shape,
                }
                load_run(url, body, {**headers, "x-bench-phase": "warm"}, args.clients, 10)
                load = os.getloadavg()[0]
                trips = load_run(
                    url, body, {**headers, "x-bench-phase": "measure"}, args.clients, args.requests
                )
                time.sleep(0.5)  # the access log is written after the response
                walls, cpus = server_times(log, shape)
                p99s[(label, shape)] = percentile(walls, 0.99)
                print(
                    f"{label:>6} {title:32s} ({len(body) // 1024} KiB, load {load:.2f})\n"
                    f"         server time  {spread(walls)}"
                    f"  p99/target {percentile(walls, 0.99) / TARGET_P99_MS:.2f}\n"
                    f"         server CPU   {spread(cpus)}\n"
                    f"         round trip   {spread(trips)}",
                    flush=True,
                )
        finally:
            server.terminate()
            server.wait(timeout=30)
    if args.before:
        ratios = ", ".join(
            f"{shape} {p99s[('now', shape)] / p99s[('before', shape)]:.2f}x" for shape in shapes
        )
        print(f"now/before server time p99: {ratios}")
    print("load average after:", Path("/proc/loadavg").read_text().strip())


if __name__ == "__main__":
    main()
