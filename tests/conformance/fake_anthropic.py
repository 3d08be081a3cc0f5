"""A scripted Anthropic Messages server on 127.0.0.1 for conformance runs: the support script
of fake_openai, spoken as `tool_use` and `tool_result` content blocks, whole or streamed."""

from __future__ import annotations

import json

from tests.conformance.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS, next_reply
from tests.json_http import JsonHandler, LocalServer

MODEL = "claude-sonnet-4-5"


def _as_chat(messages: list[dict]) -> list[dict]:
    """The conversation as next_reply reads it: each `tool_result` block a `role: tool` turn."""
    chat = []
    for message in messages:
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        for block in blocks:
            if block.get("type") == "tool_result":
                result = block.get("content")
                if isinstance(result, list):
                    result = "".join(part.get("text", "") for part in result)
                chat.append({"role": "tool", "content": result})
            elif block.get("type") == "text":
                chat.append({"role": message["role"], "content": block.get("text", "")})
    return chat


def message_for(messages: list[dict], tools: list | None = None) -> dict:
    names = tuple(tool.get("name", "") for tool in tools or [])
    reply = next_reply(_as_chat(messages), names)
    blocks = [
        {
            "type": "tool_use",
            "id": call["id"],
            "name": call["function"]["name"],
            "input": json.loads(call["function"]["arguments"]),
        }
        for call in reply.get("tool_calls") or []
    ] or [{"type": "text", "text": reply["content"]}]
    return {
        "id": f"msg_{len(messages)}",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": blocks,
        "stop_reason": "tool_use" if reply.get("tool_calls") else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": PROMPT_TOKENS, "output_tokens": COMPLETION_TOKENS},
    }


class _Handler(JsonHandler):
    def do_POST(self):  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        if not self.path.rstrip("/").endswith("/v1/messages"):
            self.send_json(404, {"type": "error", "error": {"message": f"no route {self.path}"}})
            return
        message = message_for(body.get("messages", []), body.get("tools"))
        if body.get("stream"):
            self._stream(message)
        else:
            self.send_json(200, message)

    def _stream(self, message: dict) -> None:
        """The same message as the Messages API streams it: start, each block, delta, stop."""
        head = {**message, "content": [], "stop_reason": None}
        head["usage"] = {"input_tokens": PROMPT_TOKENS, "output_tokens": 1}
        events = [("message_start", {"message": head})]
        for index, block in enumerate(message["content"]):
            if block["type"] == "tool_use":
                start = {**block, "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            else:
                start, delta = (
                    {"type": "text", "text": ""},
                    {"type": "text_delta", "text": block["text"]},
                )
            events += [
                ("content_block_start", {"index": index, "content_block": start}),
                ("content_block_delta", {"index": index, "delta": delta}),
                ("content_block_stop", {"index": index}),
            ]
        stop = {"stop_reason": message["stop_reason"], "stop_sequence": None}
        events += [
            ("message_delta", {"delta": stop, "usage": {"output_tokens": COMPLETION_TOKENS}}),
            ("message_stop", {}),
        ]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        for name, data in events:
            self.wfile.write(
                f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n".encode()
            )


class FakeAnthropic(LocalServer):
    """Context manager: `with FakeAnthropic() as server: server.base_url`."""

    handler = _Handler
