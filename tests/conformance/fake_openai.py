"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for conformance runs.

Each request is answered from the conversation so far: no tool result yet -> call
`lookup_order`; an order result -> call `refund` with the amount it names; a refund result ->
the final answer. A `lookup_order` result that is no order (an error, in any framework's words)
makes it retry the lookup. An agent offered only handoffs (`transfer_to_<agent>`) hands over; a
code agent (no tools declared, a `<code>` prompt) is answered with code that calls the tools; a
DSPy ReAct agent (no tools declared, DSPy's `[[ ## field ## ]]` prompt) in DSPy's fields.
"""

from __future__ import annotations

import json
import re
import time
import uuid

from tests.conformance import support_task
from tests.json_http import JsonHandler, LocalServer

MODEL = "gpt-4o-mini"
PROMPT_TOKENS = 120
COMPLETION_TOKENS = 30


OBSERVATION = "Observation:"
HANDOFF_PREFIX = "transfer_to_"
ERROR_OBSERVATION = "\nError:\n"


def _tool_results(messages: list[dict]) -> list[dict]:
    """Tool results: `role: tool` messages, or smolagents' user turns opening "Observation:"
    or telling an error."""
    results = []
    for message in messages:
        text = _text(message.get("content"))
        if message.get("role") == "tool":
            results.append(message)
        elif message.get("role") == "user" and text.startswith(OBSERVATION):
            results.append({"role": "tool", "content": text.removeprefix(OBSERVATION).strip()})
        elif message.get("role") == "user" and ERROR_OBSERVATION in f"\n{text}":
            # smolagents tells a tool's failure in the user turn, after the task
            error = f"\n{text}".split(ERROR_OBSERVATION, 1)[1]
            results.append({"role": "tool", "content": f"Error: {error.strip()}"})
    return results


def next_reply(
    messages: list[dict],
    tool_names: tuple[str, ...] = (),
    answer_argument: str = "answer",
    retry: bool = True,
) -> dict:
    """The assistant message that follows `messages` in the support script. An agent that
    offers a `final_answer` tool (smolagents, BeeAI) gets the answer through it, in the
    argument the tool declares. A tool offered under a qualified name (Semantic Kernel's
    `<plugin>-<function>`) is called by that name, as a model calls what it is offered."""
    reply = _scripted_reply(messages, tool_names, answer_argument, retry)
    for call in reply.get("tool_calls") or []:
        function = call["function"]
        function["name"] = _offered_name(function["name"], tool_names)
    return reply


def _offered_name(name: str, tool_names: tuple[str, ...]) -> str:
    """`name`, or the one offered tool that qualifies it (`SupportPlugin-refund`)."""
    if name in tool_names:
        return name
    qualified = [offered for offered in tool_names if offered.endswith(f"-{name}")]
    return qualified[0] if len(qualified) == 1 else name


def _scripted_reply(
    messages: list[dict], tool_names: tuple[str, ...], answer_argument: str, retry: bool
) -> dict:
    handoffs = [name for name in tool_names if name.startswith(HANDOFF_PREFIX)]
    if handoffs and not any(name in tool_names for name in support_task.TOOLS):
        # a triage agent that can only hand over: it hands the task to the first agent offered
        return _tool_call("call_handoff", handoffs[0], {})
    tool_results = [r for r in _tool_results(messages) if not _handoff_result(r)]
    if not tool_results:
        return _tool_call("call_1", "lookup_order", {"order_id": support_task.ORDER_ID})
    last = _text(tool_results[-1].get("content"))
    if not _order_or_refund(last) and not retry:
        # an agent gone wrong: it claims the refund it never made
        return _answer(support_task.FINAL_ANSWER, tool_names, answer_argument, len(tool_results))
    if not _order_or_refund(last):  # an error, in whatever words the framework puts it
        return _tool_call(
            f"call_{len(tool_results) + 1}", "lookup_order", {"order_id": support_task.ORDER_ID}
        )
    if "refund_id" in last:
        return _answer(support_task.FINAL_ANSWER, tool_names, answer_argument, len(tool_results))
    amount = json.loads(last)["amount"]
    return _tool_call(
        f"call_{len(tool_results) + 1}",
        "refund",
        {"order_id": support_task.ORDER_ID, "amount": amount},
    )


def _answer(text: str, tool_names: tuple[str, ...], answer_argument: str, results: int) -> dict:
    """The final answer: through a `final_answer` tool where the agent offers one."""
    if "final_answer" in tool_names:
        return _tool_call(f"call_{results + 1}", "final_answer", {answer_argument: text})
    return {"role": "assistant", "content": text}


def _handoff_result(result: dict) -> bool:
    """The result of a handoff (the OpenAI Agents SDK answers `{"assistant": "<agent>"}`)."""
    try:
        value = json.loads(_text(result.get("content")))
    except ValueError:
        return False
    return isinstance(value, dict) and set(value) == {"assistant"}


def _order_or_refund(text: str) -> bool:
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return isinstance(value, dict) and ("amount" in value or "refund_id" in value)


def _text(content) -> str:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""


def _tool_call(call_id: str, name: str, arguments: dict) -> dict:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }


# smolagents' CodeAgent acts by writing Python between these tags, calling tools as functions.
CODE_OPEN, CODE_CLOSE = "<code>", "</code>"
RESULT_JSON = re.compile(r"\{[^{}]*\}")


def code_reply(messages: list[dict]) -> dict:
    """The support script as a code agent writes it: each step a thought and a code blob that
    calls a tool and prints its result; the results come back in "Observation:" user turns."""
    observed = [
        json.loads(found)
        for message in messages
        if message.get("role") == "user" and _text(message.get("content")).startswith(OBSERVATION)
        for found in RESULT_JSON.findall(_text(message.get("content")))
    ]
    if not observed:
        thought, code = (
            "Look the order up.",
            f'print(lookup_order(order_id="{support_task.ORDER_ID}"))',
        )
    elif "refund_id" not in observed[-1]:
        amount = observed[-1]["amount"]
        thought = "Refund the amount the order names."
        code = f'print(refund(order_id="{support_task.ORDER_ID}", amount={amount}))'
    else:
        thought, code = "Done.", f"final_answer({support_task.FINAL_ANSWER!r})"
    return {
        "role": "assistant",
        "content": f"Thought: {thought}\n{CODE_OPEN}\n{code}\n{CODE_CLOSE}",
    }


# DSPy's ChatAdapter asks for, and reads, each output field under a `[[ ## <field> ## ]]` header.
DSPY_FIELD = re.compile(r"\[\[ ## (\w+) ## \]\]\n(.*?)(?=\n\n\[\[ ## |\Z)", re.S)
DSPY_TOOL_FIELD = "[[ ## next_tool_name ## ]]"
DSPY_RESPOND = "\n\nRespond with the corresponding output fields"  # ends the user turn


def _dspy_fields(fields: dict[str, str]) -> str:
    sections = [f"[[ ## {name} ## ]]\n{value}" for name, value in fields.items()]
    return "\n\n".join([*sections, "[[ ## completed ## ]]"])


def dspy_reply(messages: list[dict], retry: bool = True) -> dict:
    """The support script as DSPy's ReAct asks for it, in its ChatAdapter's fields. The
    trajectory so far comes in the last user turn (`observation_N` is each tool's result); each
    step answers `next_thought`, `next_tool_name` and `next_tool_args`, the last one names the
    `finish` tool, and the extract step after it (no tool fields asked) gives the `answer`."""
    system = _text(messages[0].get("content"))
    asked = _text(messages[-1].get("content")).split(DSPY_RESPOND)[0]
    fields = dict(DSPY_FIELD.findall(asked))
    if DSPY_TOOL_FIELD not in system:
        reasoning = "The order was looked up and refunded in full."
        return {
            "role": "assistant",
            "content": _dspy_fields({"reasoning": reasoning, "answer": support_task.FINAL_ANSWER}),
        }
    results = [
        {"role": "tool", "content": value.strip()}
        for name, value in fields.items()
        if name.startswith("observation_")
    ]
    reply = next_reply(results, retry=retry)
    if reply.get("tool_calls"):
        function = reply["tool_calls"][0]["function"]
        thought, name, arguments = (
            f"Call {function['name']}.",
            function["name"],
            function["arguments"],
        )
    else:
        thought, name, arguments = "The order is refunded.", "finish", "{}"
    content = _dspy_fields(
        {"next_thought": thought, "next_tool_name": name, "next_tool_args": arguments}
    )
    return {"role": "assistant", "content": content}


def completion_for(messages: list[dict], tools: list | None = None, retry: bool = True) -> dict:
    functions = [t.get("function") or {} for t in tools or []]
    names = tuple(function.get("name", "") for function in functions)
    answer_argument = "answer"
    for function in functions:
        required = (function.get("parameters") or {}).get("required") or []
        if function.get("name") == "final_answer" and len(required) == 1:
            answer_argument = required[0]
    system = _text((messages or [{}])[0].get("content"))
    if not tools and CODE_OPEN in system:
        message = code_reply(messages)
    elif not tools and "[[ ## " in system:
        message = dspy_reply(messages, retry)
    else:
        message = next_reply(messages, names, answer_argument, retry)
    return {
        "id": f"chatcmpl-{len(messages)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": PROMPT_TOKENS,
            "completion_tokens": COMPLETION_TOKENS,
            "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS,
        },
    }


def _responses_as_chat(items) -> list[dict]:
    """A Responses API input as next_reply reads it: `function_call_output` items are results."""
    if isinstance(items, str):
        return [{"role": "user", "content": items}]
    chat = []
    for item in items or []:
        if item.get("type") == "function_call_output":
            chat.append({"role": "tool", "content": item.get("output")})
        elif item.get("role"):
            chat.append({"role": item["role"], "content": item.get("content")})
    return chat


def response_for(body: dict, retry: bool = True) -> dict:
    """The Responses API's answer (`POST /v1/responses`), as the OpenAI Agents SDK asks by
    default: a `function_call` output item, or an assistant `message`."""
    names = tuple(tool.get("name", "") for tool in body.get("tools") or [])
    reply = next_reply(_responses_as_chat(body.get("input")), names, retry=retry)
    output = [
        {
            "type": "function_call",
            "id": f"fc_{call['id']}",
            "call_id": call["id"],
            "name": call["function"]["name"],
            "arguments": call["function"]["arguments"],
            "status": "completed",
        }
        for call in reply.get("tool_calls") or []
    ] or [
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": reply["content"], "annotations": []}],
        }
    ]
    return {
        "id": f"resp_{uuid.uuid4().hex}",  # unique, as the API's: instrumentations key by it
        "object": "response",
        "created_at": int(time.time()),
        "model": MODEL,
        "status": "completed",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": body.get("tools") or [],
        "instructions": body.get("instructions"),  # the API echoes them
        "usage": {
            "input_tokens": PROMPT_TOKENS,
            "output_tokens": COMPLETION_TOKENS,
            "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


class _Handler(JsonHandler):
    def do_POST(self):  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        if self.path.rstrip("/").endswith("/responses"):
            self.server.requests.append(body)
            self.send_json(200, response_for(body, self.server.retry))
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self.send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        self.server.requests.append(body)
        completion = completion_for(body.get("messages", []), body.get("tools"), self.server.retry)
        if body.get("stream"):
            self._stream(completion)
        else:
            self.send_json(200, completion)

    def _stream(self, completion: dict) -> None:
        """The same reply as server-sent chunks: the message, the finish, then usage."""
        choice = completion["choices"][0]
        delta = dict(choice["message"])
        for index, call in enumerate(delta.get("tool_calls") or []):
            call["index"] = index
        head = {key: completion[key] for key in ("id", "object", "created", "model")}
        head["object"] = "chat.completion.chunk"
        chunks = [
            {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {
                **head,
                "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}],
            },
            {**head, "choices": [], "usage": completion["usage"]},
        ]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")


class FakeOpenAI(LocalServer):
    """Context manager: `with FakeOpenAI() as server: server.base_url` ends in /v1. With
    `retry=False` the model answers as if done after a failed tool call, as a careless agent."""

    handler = _Handler
    path = "/v1"

    def __init__(self, retry: bool = True):
        self.retry = retry

    def serving(self, httpd) -> None:
        httpd.retry = self.retry
