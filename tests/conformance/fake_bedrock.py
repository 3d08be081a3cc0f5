"""A scripted Bedrock Runtime Converse server on 127.0.0.1 for conformance runs: the support
script of fake_openai, spoken as Converse `toolUse` and `toolResult` content blocks, whole
(`POST /model/{modelId}/converse`) or streamed in AWS event-stream frames (`/converse-stream`).
Standard library only."""

from __future__ import annotations

import json
import struct
import zlib

from tests.conformance.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS, next_reply
from tests.json_http import JsonHandler, LocalServer

MODEL = "anthropic.claude-3-5-sonnet-20240620-v1:0"
# the header value type of a string in an event-stream message's headers
_STRING_HEADER = 7


def _as_chat(messages: list[dict]) -> list[dict]:
    """The conversation as next_reply reads it: each `toolResult` block a `role: tool` turn
    (its content's text, or its JSON as text)."""
    chat = []
    for message in messages:
        for block in message.get("content") or []:
            if "toolResult" in block:
                parts = block["toolResult"].get("content") or []
                text = "".join(
                    part["text"] if "text" in part else json.dumps(part.get("json"))
                    for part in parts
                )
                chat.append({"role": "tool", "content": text})
            elif "text" in block:
                chat.append({"role": message["role"], "content": block["text"]})
    return chat


def converse_for(body: dict) -> dict:
    tools = (body.get("toolConfig") or {}).get("tools") or []
    names = tuple(tool.get("toolSpec", {}).get("name", "") for tool in tools)
    reply = next_reply(_as_chat(body.get("messages") or []), names)
    blocks = [
        {
            "toolUse": {
                "toolUseId": call["id"],
                "name": call["function"]["name"],
                "input": json.loads(call["function"]["arguments"]),
            }
        }
        for call in reply.get("tool_calls") or []
    ] or [{"text": reply["content"]}]
    return {
        "output": {"message": {"role": "assistant", "content": blocks}},
        "stopReason": "tool_use" if reply.get("tool_calls") else "end_turn",
        "usage": {
            "inputTokens": PROMPT_TOKENS,
            "outputTokens": COMPLETION_TOKENS,
            "totalTokens": PROMPT_TOKENS + COMPLETION_TOKENS,
        },
        "metrics": {"latencyMs": 1},
    }


def stream_events(response: dict) -> list[tuple[str, dict]]:
    """The same reply as ConverseStream's events: start, each block, stop, metadata."""
    events = [("messageStart", {"role": "assistant"})]
    for index, block in enumerate(response["output"]["message"]["content"]):
        if "toolUse" in block:
            use = block["toolUse"]
            start = {"toolUse": {"toolUseId": use["toolUseId"], "name": use["name"]}}
            events.append(("contentBlockStart", {"start": start, "contentBlockIndex": index}))
            delta = {"toolUse": {"input": json.dumps(use["input"])}}
        else:
            delta = {"text": block["text"]}
        events += [
            ("contentBlockDelta", {"delta": delta, "contentBlockIndex": index}),
            ("contentBlockStop", {"contentBlockIndex": index}),
        ]
    events += [
        ("messageStop", {"stopReason": response["stopReason"]}),
        ("metadata", {"usage": response["usage"], "metrics": response["metrics"]}),
    ]
    return events


def event_stream_frame(event_type: str, payload: dict) -> bytes:
    """One AWS event-stream message: prelude (total and headers length, their CRC32), string
    headers, the JSON payload, and the CRC32 of all before it."""
    headers = b""
    for name, value in (
        (":event-type", event_type),
        (":content-type", "application/json"),
        (":message-type", "event"),
    ):
        encoded = value.encode()
        headers += bytes([len(name)]) + name.encode() + bytes([_STRING_HEADER])
        headers += struct.pack(">H", len(encoded)) + encoded
    body = json.dumps(payload).encode()
    total = 12 + len(headers) + len(body) + 4
    prelude = struct.pack(">II", total, len(headers))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + headers + body
    return message + struct.pack(">I", zlib.crc32(message))


class _Handler(JsonHandler):
    def do_POST(self):  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        path = self.path.rstrip("/")
        if not path.startswith("/model/") or not path.endswith(("/converse", "/converse-stream")):
            self.send_json(404, {"message": f"no route {self.path}"})
            return
        self.server.requests.append(body)
        response = converse_for(body)
        if not path.endswith("/converse-stream"):
            self.send_json(200, response)
            return
        frames = b"".join(event_stream_frame(*event) for event in stream_events(response))
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.amazon.eventstream")
        self.send_header("Content-Length", str(len(frames)))
        self.end_headers()
        self.wfile.write(frames)


class FakeBedrock(LocalServer):
    """Context manager: `with FakeBedrock() as server: server.base_url`, the endpoint URL a
    `bedrock-runtime` client is given."""

    handler = _Handler
