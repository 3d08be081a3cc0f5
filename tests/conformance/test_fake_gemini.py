"""The fake Gemini server plays the support script over the Gemini REST API."""

import json
import urllib.request

import pytest

from tests.conformance import support_task
from tests.conformance.fake_gemini import MODEL, FakeGemini
from tests.conformance.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS

TOOLS = [{"functionDeclarations": [{"name": "lookup_order"}, {"name": "refund"}]}]


def _post(server, method: str, contents: list[dict]) -> bytes:
    request = urllib.request.Request(
        f"{server.base_url}v1beta/models/{MODEL}:{method}",
        data=json.dumps({"contents": contents, "tools": TOOLS}).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        return response.read()


def _reply(server, contents: list[dict], stream: bool) -> tuple[list[dict], dict]:
    """The reply's parts (a stream's chunks joined) and its last usage."""
    if not stream:
        body = json.loads(_post(server, "generateContent", contents))
        return body["candidates"][0]["content"]["parts"], body["usageMetadata"]
    text = _post(server, "streamGenerateContent?alt=sse", contents).decode()
    chunks = [json.loads(line[len("data: ") :]) for line in text.splitlines() if line]
    parts = [p for chunk in chunks for p in chunk["candidates"][0]["content"]["parts"]]
    if all("text" in part for part in parts):
        parts = [{"text": "".join(part["text"] for part in parts)}]
    return parts, chunks[-1]["usageMetadata"]


@pytest.mark.parametrize("stream", [False, True])
def test_script_calls_lookup_then_refund_then_answers(stream):
    contents = [{"role": "user", "parts": [{"text": support_task.TASK}]}]
    calls = []
    with FakeGemini() as server:
        for _ in range(3):
            parts, usage = _reply(server, contents, stream)
            assert (usage["promptTokenCount"], usage["candidatesTokenCount"]) == (
                PROMPT_TOKENS,
                COMPLETION_TOKENS,
            )
            if "functionCall" not in parts[0]:
                break
            call = parts[0]["functionCall"]
            calls.append((call["name"], call["args"]))
            result = support_task.TOOLS[call["name"]](**call["args"])
            contents += [
                {"role": "model", "parts": parts},
                {
                    "role": "user",
                    "parts": [
                        {"functionResponse": {"name": call["name"], "response": {"result": result}}}
                    ],
                },
            ]
    assert calls == [
        ("lookup_order", {"order_id": "R-7731"}),
        ("refund", {"order_id": "R-7731", "amount": 42.5}),
    ]
    assert parts == [{"text": support_task.FINAL_ANSWER}]
