"""OpenAI chat-completions messages as an agent's transcript carries them."""


def assistant_tool_call(call_id: str, name: str, arguments: str) -> dict:
    """An assistant turn that only calls one tool; `arguments` is the JSON text the model wrote."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
        ],
    }
