"""Trajectories the guardrail tests send, as an agent would: span trees and transcripts."""

SEARCH = {"origin": "LHR", "destination": "JFK"}


def tool(name, inputs, output=None, **extra):
    return {"name": name, "type": "tool", "input": inputs, "output": output, **extra}


def span_tree(*children, task="Cancel order A1042 for customer C-77.", **extra):
    return {
        "name": "support-agent",
        "type": "agent",
        "task": task,
        "children": list(children),
        **extra,
    }


def search_steps(count: int, origin: str = "LHR") -> list[dict]:
    return [
        tool("search_flights", {"origin": origin, "destination": "JFK"}, {"flights": []})
        for _ in range(count)
    ]


def anthropic_transcript(calls: list[tuple[str, dict, object]], task: str) -> dict:
    """A Messages API conversation: the user's task, then tool_use / tool_result pairs."""
    messages: list[dict] = [{"role": "user", "content": task}]
    for index, (name, inputs, output) in enumerate(calls):
        call_id = f"toolu_{index:02d}"
        messages.append(
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": call_id, "name": name, "input": inputs}],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": call_id, "content": str(output)}
                ],
            }
        )
    return {"format": "anthropic", "messages": messages}
