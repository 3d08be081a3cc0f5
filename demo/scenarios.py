"""Demo trajectories: customer support, travel, coding and scheduling agents, each failure kind.

The trajectories themselves are data, in scenarios.json: each trace names its agent, task,
answer, tool catalogue and steps (`{"llm": text}` or `{"tool", "input", "output", "error"}`).
Here each becomes a span-tree payload (root `name`, `type`, `input`, `output`, `children`,
`available_tools`) with fixed ids and times, so loading the demo twice changes nothing.
"""

import hashlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

DEMO_START = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
SCENARIOS_FILE = Path(__file__).with_name("scenarios.json")


def _hex(key: str, length: int) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:length]


class _Clock:
    """Hands out consecutive [start, end] windows so every span gets realistic times."""

    def __init__(self, start: datetime):
        self.now = start

    def window(self, ms: int) -> tuple[str, str]:
        start = self.now
        self.now = start + timedelta(milliseconds=ms)
        return start.isoformat(), self.now.isoformat()


def _llm(clock, text, *, tokens=(900, 120), ms=1400):
    start, end = clock.window(ms)
    return {
        "name": "chat claude-sonnet-4-5",
        "type": "llm",
        "start_time": start,
        "end_time": end,
        "input": {"messages": "(conversation so far)"},
        "output": text,
        "attributes": {
            "gen_ai.usage.input_tokens": tokens[0],
            "gen_ai.usage.output_tokens": tokens[1],
            "gen_ai.request.model": "claude-sonnet-4-5",
        },
    }


def _tool(clock, name, inputs, output, *, ms=300, error=None):
    start, end = clock.window(ms)
    node = {
        "name": name,
        "type": "tool",
        "start_time": start,
        "end_time": end,
        "input": inputs,
        "output": output,
    }
    if error:
        node["status"] = "error"
        node["error"] = error
    return node


def _step(clock, step: dict) -> dict:
    if "llm" in step:
        return _llm(
            clock,
            step["llm"],
            tokens=tuple(step.get("tokens", (900, 120))),
            ms=step.get("ms", 1400),
        )
    return _tool(
        clock,
        step["tool"],
        step["input"],
        step["output"],
        ms=step.get("ms", 300),
        error=step.get("error"),
    )


def _trace(
    key,
    *,
    agent,
    version,
    task_type,
    task,
    answer,
    tools,
    steps,
    stop_reason="end_turn",
    day=0,
    session="",
):
    clock = _Clock(DEMO_START + timedelta(days=day, minutes=len(key) * 7))
    start = clock.now.isoformat()
    children = [_step(clock, step) for step in steps]
    clock.window(200)
    return {
        "trace_id": _hex(key, 32),
        "name": f"invoke_agent {agent}",
        "type": "agent",
        "input": task,
        "output": answer,
        "start_time": start,
        "end_time": clock.now.isoformat(),
        "available_tools": tools,
        "attributes": {
            "gen_ai.agent.name": agent,
            "gen_ai.agent.version": version,
            "agent.task_type": task_type,
            "agent.stop_reason": stop_reason,
        },
        "children": children,
        # Where the run came from, as teams tag theirs; a conversation's turns say so too.
        "tags": ["production", "multi-turn"] if session else ["production"],
        # The customer served (a conversation's turns, one customer); traces of one
        # conversation share a session id, as agents send them.
        "context": {
            "user_id": _customer(session or key),
            **({"session_id": session} if session else {}),
        },
    }


def _customer(seed: str) -> str:
    """One of a dozen demo customers, the same for the same seed."""
    return f"cust-{4400 + int(_hex(seed, 8), 16) % 12}"


def scenarios() -> list[dict]:
    """All demo traces, newest failure kinds included."""
    data = json.loads(SCENARIOS_FILE.read_text(encoding="utf-8"))
    return [_trace(**{**spec, "tools": data["tools"][spec["tools"]]}) for spec in data["traces"]]
