"""The Anthropic tool loop in docs/guardrails.md: its request shape, built from the SDK's own
block types, is what the endpoint reads; the third identical search is blocked and the model
gets the fallback."""

import pytest
from anthropic.types import TextBlock, ToolUseBlock

pytestmark = pytest.mark.django_db

TOOLS = [
    {
        "name": "search_flights",
        "description": "Search flights.",
        "input_schema": {"type": "object", "properties": {"origin": {"type": "string"}}},
    }
]


def _assistant_turn(index: int) -> dict:
    blocks = [
        TextBlock(type="text", text="Let me search again."),
        ToolUseBlock(
            type="tool_use",
            id=f"toolu_01A09q90qw90lq91783{index}",
            name="search_flights",
            input={"origin": "LHR", "destination": "JFK"},
        ),
    ]
    return {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in blocks]}


def test_guide_loop_request_blocks_the_third_search(annotator, api_client_for):
    agent = api_client_for(annotator)
    messages: list[dict] = [{"role": "user", "content": "Flights LHR to JFK, 14 March."}]
    decisions = []
    for index in range(3):
        messages.append(_assistant_turn(index))
        call = messages[-1]["content"][1]
        verdict = agent.post(
            "/api/guardrails/check",
            {
                "project": "support-agent",
                "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
                "record": True,
                "trajectory": {"format": "anthropic", "messages": messages[:-1], "tools": TOOLS},
                "next_call": {"tool": call["name"], "input": call["input"], "id": call["id"]},
            },
            format="json",
        )
        assert verdict.status_code == 200, verdict.json()
        body = verdict.json()
        decisions.append(body["decision"])
        content = body["fallback"] if body["decision"] == "block" else '{"flights": []}'
        messages.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": call["id"], "content": content}],
            }
        )
    assert decisions == ["allow", "allow", "block"]
    assert body["checks"][0]["span_id"] == "toolu_01A09q90qw90lq917832"
