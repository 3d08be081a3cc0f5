"""A scripted Gemini API server on 127.0.0.1 for conformance runs: the support script of
fake_openai, spoken as `functionCall` and `functionResponse` parts, whole
(`:generateContent`) or streamed as server-sent events (`:streamGenerateContent?alt=sse`)."""

from __future__ import annotations

import contextlib
import json
import uuid

from tests.conformance.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS, next_reply
from tests.json_http import JsonHandler, LocalServer

MODEL = "gemini-2.0-flash"


def _field(mapping: dict, camel: str, snake: str):
    """A request field as the SDK sends it (camelCase), or as written by hand (snake_case)."""
    return mapping.get(camel, mapping.get(snake))


def _as_chat(contents: list[dict]) -> list[dict]:
    """The conversation as next_reply reads it: each `functionResponse` part a `role: tool`
    turn carrying the response's `result` (or its `error`, which is no order)."""
    chat = []
    for content in contents:
        for part in content.get("parts") or []:
            response = _field(part, "functionResponse", "function_response")
            if response is not None:
                value = response.get("response") or {}
                value = value.get("result", value) if isinstance(value, dict) else value
                text = value if isinstance(value, str) else json.dumps(value)
                chat.append({"role": "tool", "content": text})
            elif part.get("text") is not None:
                chat.append({"role": content.get("role", "user"), "content": part["text"]})
    return chat


def _tool_names(tools: list[dict] | None) -> tuple[str, ...]:
    return tuple(
        declaration.get("name", "")
        for tool in tools or []
        for declaration in _field(tool, "functionDeclarations", "function_declarations") or []
    )


def _usage(candidates_tokens: int) -> dict:
    return {
        "promptTokenCount": PROMPT_TOKENS,
        "candidatesTokenCount": candidates_tokens,
        "totalTokenCount": PROMPT_TOKENS + candidates_tokens,
    }


def response_for(body: dict) -> dict:
    """The `GenerateContentResponse` that follows the request's contents in the script."""
    reply = next_reply(_as_chat(body.get("contents") or []), _tool_names(body.get("tools")))
    parts = [
        {
            "functionCall": {
                "name": call["function"]["name"],
                "args": json.loads(call["function"]["arguments"]),
            }
        }
        for call in reply.get("tool_calls") or []
    ] or [{"text": reply["content"]}]
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": _usage(COMPLETION_TOKENS),
        "modelVersion": MODEL,
        "responseId": uuid.uuid4().hex[:22],
    }


class _Handler(JsonHandler):
    def do_POST(self):  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        path = self.path.split("?", 1)[0]
        if path.endswith(":generateContent"):
            self.server.requests.append(body)
            self.send_json(200, response_for(body))
        elif path.endswith(":streamGenerateContent"):
            self.server.requests.append(body)
            self._stream(response_for(body))
        else:
            self.send_json(404, {"error": {"code": 404, "message": f"no route {self.path}"}})

    def _stream(self, response: dict) -> None:
        """The same response as the API streams it: a text answer in two chunks, a function
        call whole; the prompt's count on each chunk, the candidates' on the last."""
        candidate = response["candidates"][0]
        parts = candidate["content"]["parts"]
        if "text" in parts[0]:
            text = parts[0]["text"]
            half = len(text) // 2
            pieces = [[{"text": text[:half]}], [{"text": text[half:]}]]
        else:
            pieces = [parts]
        chunks = []
        for number, piece in enumerate(pieces, 1):
            last = number == len(pieces)
            chunk_candidate = {"content": {"role": "model", "parts": piece}, "index": 0}
            if last:
                chunk_candidate["finishReason"] = candidate["finishReason"]
            chunks.append(
                {
                    **response,
                    "candidates": [chunk_candidate],
                    "usageMetadata": _usage(COMPLETION_TOKENS) if last else _usage(0),
                }
            )
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(f"data: {json.dumps(chunk)}\r\n\r\n".encode())


class FakeGemini(LocalServer):
    """Context manager: `with FakeGemini() as server: server.base_url` (the SDK adds the API
    version and the model's path)."""

    handler = _Handler
    path = "/"


@contextlib.contextmanager
def gemini_client(provider, instrumentor, tools: list, **config):
    """The Google Gen AI SDK's client on a fake Gemini server, under `instrumentor` (given the
    recording's tracer provider) and a span of the application's own, with the generate config
    of the support task: its system prompt, `tools` and the rest of `config`."""
    from google import genai
    from google.genai import types

    from tests.conformance.support_task import SYSTEM_PROMPT

    instrumentor.instrument(tracer_provider=provider)
    try:
        with (
            FakeGemini() as server,
            provider.get_tracer("support").start_as_current_span("support run"),
        ):
            client = genai.Client(
                api_key="test", http_options=types.HttpOptions(base_url=server.base_url)
            )
            yield (
                client,
                types.GenerateContentConfig(
                    tools=tools, system_instruction=SYSTEM_PROMPT, **config
                ),
            )
    finally:
        instrumentor.uninstrument()
