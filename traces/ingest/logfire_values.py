"""Values of Pydantic Logfire's LLM instrumentations that read otherwise than they look."""

from __future__ import annotations

import json

# Logfire's former attributes (`version=1`) write an Anthropic reply as a chat completion
# message, `{message: {tool_calls: [{id, function: {name, arguments}}]}, usage}`, each call's
# arguments the `tool_use` block's dump limited to its input: `{"input": {...}}`.
RESPONSE_DATA = "response_data"
ANTHROPIC = "anthropic"
WRAPPED_ARGUMENTS = "input"


def logfire_reply_read(reply: dict, attributes) -> dict:
    """A model call's `response_data` with an Anthropic reply's call arguments unwrapped."""
    if RESPONSE_DATA not in attributes or ANTHROPIC not in (
        attributes.get("gen_ai.system"),
        attributes.get("gen_ai.provider.name"),
    ):
        return reply
    message = reply.get("message")
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    if not isinstance(calls, list):
        return reply
    unwrapped = []
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        arguments = function.get("arguments") if isinstance(function, dict) else None
        try:
            value = json.loads(arguments) if isinstance(arguments, str) else arguments
        except ValueError:
            value = None
        if isinstance(value, dict) and set(value) == {WRAPPED_ARGUMENTS}:
            call = {**call, "function": {**function, "arguments": value[WRAPPED_ARGUMENTS]}}
        unwrapped.append(call)
    return {**reply, "message": {**message, "tool_calls": unwrapped}}
