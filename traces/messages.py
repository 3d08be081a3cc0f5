"""Chat messages in every form agent traces carry them, read into one shape.

Forms read: OpenAI chat (`content`, `tool_calls`, role `tool`), Anthropic Messages (`text`,
`tool_use`, `tool_result` blocks), OpenTelemetry GenAI parts (`parts` with `text`,
`tool_call`, `tool_call_response`), LangChain (`type: human|ai|tool`, or its serialized
`kwargs` form), OpenInference (`message.role`, `message.content`, `message.tool_calls`),
Gemini/ADK (`role: model`, `parts` with `text`, `function_call`, `function_response`), the
AI SDK's and BeeAI's `tool-call` and `tool-result` parts, a model turn's `{text, toolCalls}`
(Mastra), and the pre-1.37 GenAI message events. Containers are a list, `{"messages": [...]}`,
`{"contents": [...]}` or LangGraph's `tool_call_with_context` (`{"tool_call": ..., "state":
{"messages": [...]}}`). Nothing here changes what is stored: it is a reading of it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from core.json_text import json_text_decoded
from traces.part_text import part_text_read

# Python literals are read only up to this size: literal_eval of a huge text is slow.
LITERAL_MAX_CHARS = 200_000
ROLE_ALIASES = {
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "assistant": "assistant",
    "model": "assistant",
    "bot": "assistant",
    "system": "system",
    "developer": "system",
    "tool": "tool",
    "function": "tool",
    "ipython": "tool",
    "tool-response": "tool",  # smolagents
    "tool-call": "assistant",
}
EVENT_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
    "gen_ai.choice": "assistant",
}
LANGCHAIN_CLASSES = {
    "HumanMessage": "user",
    "AIMessage": "assistant",
    "SystemMessage": "system",
    "ToolMessage": "tool",
    "FunctionMessage": "tool",
}
# Keys whose string value is what a person asked or was told, most telling first.
TEXT_KEYS = (
    "task",
    "query",
    "question",
    "user_input",
    "input",
    "prompt",
    "message",
    "content",
    "text",
    "final_output",
    "final_answer",
    "answer",
    "output",
    "response",
    "result",
    "raw",  # CrewAI's CrewOutput and TaskOutput
)


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: object = None


@dataclass
class ToolResult:
    id: str
    content: object = None
    is_error: bool = False
    # The call it answers, where the result names it (Haystack's ToolCallResult `origin`).
    origin: ToolCall | None = None
    # The tool it answers, where a result names its tool (a Gemini function response does).
    name: str = ""


@dataclass
class Message:
    role: str
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_results: list[ToolResult] = field(default_factory=list)


def _arguments(value):
    decoded = json_text_decoded(value)
    return decoded if decoded is not None else value


def _role_of(raw: dict) -> str | None:
    role = raw.get("role") or raw.get("type")
    if isinstance(raw.get("id"), list) and raw.get("kwargs") is not None:
        role = LANGCHAIN_CLASSES.get(str(raw["id"][-1]))
    if raw.get("event") in EVENT_ROLES:
        role = EVENT_ROLES[raw["event"]]
    if not isinstance(role, str):
        return None
    return ROLE_ALIASES.get(role.lower())


def _tool_call_into(message: Message, call: dict) -> None:
    """An OpenAI-style tool call (`{id, function: {name, arguments}}`), added to the message."""
    call = call.get("tool_call", call)  # OpenInference nests one level deeper
    function = call.get("function") if isinstance(call.get("function"), dict) else call
    message.tool_calls.append(
        ToolCall(
            id=str(call.get("id") or ""),
            name=str(function.get("name") or ""),
            arguments=_arguments(function.get("arguments", function.get("args"))),
        )
    )


AI_SDK_OUTPUTS = frozenset(("text", "json", "error-text", "error-json", "content"))


def _block_into(message: Message, block, texts: list[str]) -> None:
    """One content block or part of any form, added to the message."""
    if isinstance(block, str):
        texts.append(block)
        return
    if not isinstance(block, dict):
        return
    kind = block.get("type")
    if kind is None and len(block) == 1:
        # Haystack's ChatMessage parts: `{"tool_call": {...}}`, `{"tool_call_result": {...}}`
        ((key, inner),) = block.items()
        if key in HAYSTACK_PARTS and isinstance(inner, dict):
            block, kind = {**inner, "type": key}, key
    if kind in ("text", "output_text", "input_text") or (kind is None and "text" in block):
        text = block.get("text", block.get("content"))
        if isinstance(text, str):
            if (part := part_text_read(text)) is not None:  # a Gemini part as its str()
                _block_into(message, part, texts)
                return
            texts.append(text)
    elif (
        kind in ("tool_use", "tool_call", "function_call", "tool-call") or "function_call" in block
    ):
        call = block.get("function_call") if isinstance(block.get("function_call"), dict) else block
        found = ToolCall(
            id=str(call.get("id") or call.get("call_id") or call.get("toolCallId") or ""),
            name=str(call.get("name") or call.get("tool_name") or call.get("toolName") or ""),
            arguments=_arguments(call.get("input", call.get("arguments", call.get("args")))),
        )
        if found.id or found.name:  # a bare `{"type": "tool_use"}` names no call
            message.tool_calls.append(found)
    elif kind == "tool_call_result":
        message.tool_results.append(_haystack_result(block))
    elif kind in ("tool_result", "tool_call_response", "function_call_output", "tool-result") or (
        "function_response" in block
    ):
        response = block.get("function_response")
        source = response if isinstance(response, dict) else block
        key = next((k for k in ("content", "response", "result", "output") if k in source), None)
        content = json_text_decoded(source[key]) if key else None
        is_error = bool(source.get("is_error"))
        if isinstance(content, dict) and content.get("type") in AI_SDK_OUTPUTS:
            # the AI SDK (v5 on) types a result: `{"type": "text" | "json" | "error-text"...}`
            is_error = content["type"].startswith("error")
            content = json_text_decoded(content.get("value"))
        elif key == "response" and isinstance(content, dict) and len(content) == 1:
            content, is_error = _function_response_read(content, is_error)
        message.tool_results.append(
            ToolResult(
                id=str(
                    source.get("tool_use_id")
                    or source.get("id")
                    or source.get("call_id")
                    or source.get("tool_call_id")
                    or source.get("toolCallId")
                    or ""
                ),
                content=content,
                is_error=is_error,
                name=source.get("name") if isinstance(source.get("name"), str) else "",
            )
        )
    elif isinstance(block.get("toolUse"), dict):  # Bedrock Converse (strands)
        use = block["toolUse"]
        message.tool_calls.append(
            ToolCall(
                id=str(use.get("toolUseId") or ""),
                name=str(use.get("name") or ""),
                arguments=use.get("input"),
            )
        )
    elif isinstance(block.get("toolResult"), dict):
        result = block["toolResult"]
        texts_in: list[str] = []
        for inner in result.get("content") or []:
            _block_into(Message(role="tool"), inner, texts_in)
        message.tool_results.append(
            ToolResult(
                id=str(result.get("toolUseId") or ""),
                content=json_text_decoded("\n".join(texts_in)),
                is_error=result.get("status") == "error",
            )
        )
    elif kind == "reasoning" or kind == "thinking":
        return
    elif isinstance(block.get("content"), str) and kind in (None, "message"):
        texts.append(block["content"])


# Haystack's ChatMessage content parts other than text, each a one-key dict in its to_dict().
HAYSTACK_PARTS = frozenset(("tool_call", "tool_call_result", "reasoning"))


def _haystack_result(block: dict) -> ToolResult:
    """A Haystack ToolCallResult (`{result, origin: <its ToolCall>, error}`): the result, its
    error mark, and the call it answers."""
    origin = block.get("origin") if isinstance(block.get("origin"), dict) else {}
    call = ToolCall(
        id=str(origin.get("id") or ""),
        name=str(origin.get("tool_name") or ""),
        arguments=_arguments(origin.get("arguments")),
    )
    return ToolResult(
        id=call.id,
        content=json_text_decoded(block.get("result")),
        is_error=block.get("error") is True,
        origin=call if call.name else None,
    )


# Gemini's FunctionResponse.response holds a function's return under `output` (the Google Gen
# AI SDK and ADK write `result`) and a failure under `error`.
FUNCTION_RESPONSE_RETURNS = frozenset(("result", "output"))
FUNCTION_RESPONSE_ERROR = "error"


def _function_response_read(response: dict, is_error: bool) -> tuple[object, bool]:
    """A one-key Gemini function response as what the function returned, or its error."""
    ((key, value),) = response.items()
    if key in FUNCTION_RESPONSE_RETURNS:
        return json_text_decoded(value), is_error
    if key == FUNCTION_RESPONSE_ERROR:
        return json_text_decoded(value), True
    return response, is_error


def message_read(raw) -> Message | None:
    """One message of any form, or None when the value is not a message."""
    if isinstance(raw, list | tuple) and len(raw) == 2 and all(isinstance(x, str) for x in raw):
        role = ROLE_ALIASES.get(raw[0].lower())  # LangChain's ("user", "text") shorthand
        return Message(role=role, text=raw[1]) if role else None
    if isinstance(raw, str) and raw.startswith(MESSAGE_REPR_OPENING):
        raw = keyword_repr_read(raw)  # Haystack's ChatMessage logged as its repr
    if not isinstance(raw, dict):
        return None
    if "_role" in raw and "role" not in raw:
        # Haystack's ChatMessage fields (`_role`, `_content`), as its older to_dict wrote them
        raw = {key.removeprefix("_"): value for key, value in raw.items()}
    if isinstance(raw.get("data"), dict) and isinstance(raw.get("type"), str):
        raw = {**raw["data"], "type": raw["type"]}  # LangChain's messages_to_dict form
    if isinstance(raw.get("message"), dict) and "role" not in raw:
        inner_raw = raw["message"]
        if "role" not in inner_raw and raw.get("event") in EVENT_ROLES:
            # A gen_ai.choice event's message need not repeat its role.
            inner_raw = {**inner_raw, "role": EVENT_ROLES[raw["event"]]}
        if raw.get("tool_calls") and not inner_raw.get("tool_calls"):
            # The event's calls beside its message, as the 1.28 conventions and Koog write them.
            inner_raw = {**inner_raw, "tool_calls": raw["tool_calls"]}
        if isinstance(raw.get("function"), list) and "content" not in inner_raw:
            # OpenInference's AgentChat writes a FunctionExecutionResultMessage's results beside
            # its message (`function.N`: {name, content, call_id, is_error})
            results = [r for r in raw["function"] if isinstance(r, dict)]
            inner_raw = {**inner_raw, "content": [{"type": "tool_result", **r} for r in results]}
        inner = message_read(inner_raw)  # OpenInference and gen_ai.choice wrap it
        if inner is not None:
            return inner
    role = _role_of(raw)
    if role is None:
        return None
    body = raw.get("kwargs") if isinstance(raw.get("kwargs"), dict) else raw
    message = Message(role=role)
    texts: list[str] = []
    content = body.get("content")
    if content is None and isinstance(body.get("message"), str):
        content = body["message"]  # a gen_ai.choice event's reply (strands)
    if isinstance(content, str) and content.startswith("[{"):
        blocks = json_text_decoded(content)  # strands writes its content blocks as JSON text
        if isinstance(blocks, list) and all(isinstance(b, dict) for b in blocks):
            content = blocks
    parts = body.get("parts")
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for block in content:
            _block_into(message, block, texts)
    elif isinstance(content, dict):
        _block_into(message, content, texts)
    if isinstance(parts, list):
        for part in parts:
            _block_into(message, part, texts)
    contents = body.get("contents")
    if isinstance(contents, list):  # OpenInference `message.contents.N.message_content`
        for part in contents:
            inner = part.get("message_content") if isinstance(part, dict) else None
            if isinstance(inner, dict) and isinstance(part.get("tool_call"), dict):
                # OpenInference's Anthropic: a `tool_use` part carries its call beside it (the
                # message's tool_calls list it again: read once, _calls_once)
                _tool_call_into(message, part)
                continue
            said = len(texts)
            _block_into(message, inner if isinstance(inner, dict) else part, texts)
            if len(texts) > said and texts[-1] in texts[:said]:
                texts.pop()  # OpenInference's Responses messages say their text twice
    for call in body.get("tool_calls") or []:
        if isinstance(call, dict):
            _tool_call_into(message, call)
    call_id = body.get("tool_call_id")
    if call_id is None and raw.get("event") == "gen_ai.tool.message":
        call_id = body.get("id")  # the pre-1.37 tool event names its call `id`
    name = body.get("name") if role == "tool" and isinstance(body.get("name"), str) else ""
    if call_id is None and name:
        call_id = ""  # a function's response named by the function only (OpenInference's Gemini)
    if role == "tool" and call_id is not None and not message.tool_results:
        if (isinstance(content, list) or content is None) and texts:
            # content blocks (Bedrock's `[{"text": ...}]`), or GenAI text parts beside the
            # call id (LiteLLM's `{"role": "tool", "parts": [...], "tool_call_id": ...}`)
            content = "\n".join(texts)
        content, is_error = json_text_decoded(content), bool(body.get("is_error"))
        if name and isinstance(content, dict) and len(content) == 1:
            content, is_error = _function_response_read(content, is_error)  # a Gemini response
        message.tool_results.append(
            ToolResult(id=str(call_id), content=content, is_error=is_error, name=name)
        )
        texts = []
    if len(message.tool_calls) > 1:
        message.tool_calls = _calls_once(message.tool_calls)
    if message.tool_calls and texts:
        texts = [text for text in texts if not _call_as_text(text, message.tool_calls)]
    message.text = "\n".join(t for t in texts if t)
    if role in PREVIEW_ROLES and "[tool" in message.text:
        message.text = PREVIEW_MARKER.sub("", message.text).strip()
    if not message.tool_calls and not message.tool_results:
        _step_memory_read(message)
    return message


# Mastra's preview of a model turn's messages writes each tool call and result as a marker
# (`[tool: lookup_order]`, `[tool-result: lookup_order]`): it names a part, says nothing of it.
PREVIEW_MARKER = re.compile(r"\[tool(?:-result)?: [^\]\n]*\]")
PREVIEW_ROLES = frozenset(("assistant", "tool"))


def _turn_result_read(value: dict) -> Message:
    """A model turn's result as Mastra's steps give it (the AI SDK's step shape), `{text,
    toolCalls: [{toolCallId, toolName, args | input}]}`: one assistant message."""
    text = value.get("text")
    message = Message(role="assistant", text=text if isinstance(text, str) else "")
    for call in value["toolCalls"]:
        if isinstance(call, dict):
            _block_into(message, {**call, "type": "tool-call"}, [])
    return message


def _calls_once(calls: list[ToolCall]) -> list[ToolCall]:
    """Each call once: LangChain's AIMessage from Anthropic lists a call both as a `tool_use`
    content block and in `tool_calls`, under the same id."""
    seen: set[str] = set()
    once = []
    for call in calls:
        if call.id and call.id in seen:
            continue
        seen.add(call.id)
        once.append(call)
    return once


def _call_as_text(text: str, calls: list[ToolCall]) -> bool:
    """A text that is only a call of the message written out as JSON (OpenLLMetry's LangChain
    instrumentation writes an Anthropic `tool_use` block as a text part)."""
    if not text.startswith("{"):
        return False
    block = json_text_decoded(text)
    return (
        isinstance(block, dict)
        and block.get("type") in ("tool_use", "tool_call", "function_call")
        and any(call.id and call.id == block.get("id") for call in calls)
    )


# smolagents hands its steps back to the model as text: the calls a step made as
# `Calling tools:\n[<Python list>]`, what came back as `Observation:\n<result>`.
CALLS_TEXT = "Calling tools:\n"
OBSERVATION_TEXT = "Observation:\n"


def _step_memory_read(message: Message) -> None:
    """A step told back as text, read as the calls and the result it is."""
    if message.role == "assistant" and message.text.startswith(CALLS_TEXT):
        calls = python_literal_maybe(message.text[len(CALLS_TEXT) :])
        if isinstance(calls, list) and calls and all(isinstance(c, dict) for c in calls):
            for call in calls:
                function = call.get("function") if isinstance(call.get("function"), dict) else call
                message.tool_calls.append(
                    ToolCall(
                        id=str(call.get("id") or ""),
                        name=str(function.get("name") or ""),
                        arguments=_arguments(function.get("arguments")),
                    )
                )
            message.text = ""
    elif message.role == "tool" and message.text.startswith(OBSERVATION_TEXT):
        result = message.text[len(OBSERVATION_TEXT) :]
        message.tool_results.append(ToolResult(id="", content=json_text_decoded(result)))
        message.text = ""


# An object logged as its repr: `StopEvent(result=...)`, `<app.Context object at 0x...>`, a
# coroutine or function a framework logged uncalled (`<coroutine object Flow.run at 0x...>`).
OBJECT_REPR = re.compile(
    r"^(?:(?P<cls>[A-Z]\w*)\((?=\w+=|\))"
    r"|<(?:[\w.]+ object|\w+ object [\w.<>]+|function [\w.<>]+) at 0x[0-9a-fA-F]+>$)"
)


def object_repr(text: str) -> bool:
    """Whether a text is an object's repr (`StopEvent(result=...)`), which no one wrote to be
    read: a framework logged the object its run returned."""
    return OBJECT_REPR.match(text) is not None


def python_literal_maybe(value):
    """A Python literal dict or list written as text (`{'role': 'assistant', ...}`, a repr some
    frameworks log) read as data by ast.literal_eval, which evaluates no code; else the value."""
    if not isinstance(value, str) or len(value) > LITERAL_MAX_CHARS:
        return value
    text = value.strip()
    if not (text[:1] in "{[" and text[-1:] in "}]") or not text:
        return value
    if json_text_decoded(text) is not text:
        return value  # JSON text: readers decode it as JSON
    try:
        data = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return value
    return data if isinstance(data, dict | list) else value


# A LangChain message as `str()` writes it (pydantic's fields, space-separated):
# `content='{"id": 1}' name='lookup' tool_call_id='call_2'`, its content a Python string literal.
_MESSAGE_STR = re.compile(r"""content=('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")(?= \w+=|$)""", re.S)


def message_str_content(text: str):
    """The content of a message written as its `str()` (OpenLIT's LangChain tool results), as
    `{"error": content}` when its status says the tool failed; the text itself otherwise."""
    found = _MESSAGE_STR.match(text) if len(text) <= LITERAL_MAX_CHARS else None
    if found is None:
        return text
    try:
        content = ast.literal_eval(found[1])
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text
    content = json_text_decoded(content)
    return {"error": content} if " status='error'" in text[found.end() :] else content


MESSAGE_REPR_OPENING = "ChatMessage("
# `<ChatRole.USER: 'user'>`: an enum member's repr, read as its value.
_ENUM_REPR = re.compile(r"^<[\w.]+: (.+)>$", re.S)


def _angle_reprs_quoted(text: str) -> str | None:
    """The text with each `<...>` outside quotes (an enum member, `<function f at 0x...>`, an
    object's address) written as a Python literal: the enum's value, else the repr as a string.
    None when a bracket is left open."""
    out, index, quote, length = [], 0, "", len(text)
    while index < length:
        char = text[index]
        if quote:
            if char == "\\":
                out.append(text[index : index + 2])
                index += 2
                continue
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "<":
            depth, end = 0, index
            while end < length:
                depth += {"<": 1, ">": -1}.get(text[end], 0)
                if depth == 0:
                    break
                end += 1
            if depth:
                return None
            inner = text[index : end + 1]
            enum = _ENUM_REPR.match(inner)
            out.append(enum[1] if enum else repr(inner))
            index = end + 1
            continue
        out.append(char)
        index += 1
    return "".join(out)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _repr_node(node):
    """A parsed repr as data: literals as they are, `Cls(a=1)` as `{"type": "cls", "a": 1}`
    (its fields without a leading underscore; Haystack's `TextContent` as `text`, as its
    to_dict names the part)."""
    if isinstance(node, ast.Call) and not node.args and isinstance(node.func, ast.Name):
        data = {kw.arg.removeprefix("_"): _repr_node(kw.value) for kw in node.keywords if kw.arg}
        data.setdefault("type", _snake(node.func.id).removesuffix("_content"))
        return data
    if isinstance(node, ast.List | ast.Tuple):
        return [_repr_node(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        return {_repr_node(k): _repr_node(v) for k, v in zip(node.keys, node.values, strict=True)}
    return ast.literal_eval(node)


def keyword_repr_read(text: str):
    """A Python repr of objects with keyword fields (`ChatMessage(_role=<ChatRole.USER:
    'user'>, _content=[TextContent(text='Hi')])`, a dataclass's), read as data without running
    any code (_repr_node); the text itself when it is no such repr."""
    if len(text) > LITERAL_MAX_CHARS:
        return text
    quoted = _angle_reprs_quoted(text.strip())
    if quoted is None:
        return text
    try:
        return _repr_node(ast.parse(quoted, mode="eval").body)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


# Keys a container lists its messages under: Haystack's generators answer `{"replies": [...]}`,
# its ToolInvoker `{"tool_messages": [...], "state": ...}`, its ChatPromptBuilder `{"prompt":
# [...]}`.
MESSAGE_LISTS = (
    "messages",
    "contents",
    "input_messages",
    "output_messages",
    "replies",
    "tool_messages",
    "prompt",
)


def messages_read(value) -> list[Message] | None:
    """The messages in a value (a list, or a container of one), or None when it holds none."""
    value = json_text_decoded(value)
    if isinstance(value, dict):
        generations = value.get("generations")
        if isinstance(generations, list) and generations:
            # LangChain LLMResult: [[{"text", "message"}]] per prompt
            batch = generations[0] if isinstance(generations[0], list) else generations
            return messages_read([g.get("message") or g for g in batch if isinstance(g, dict)])
        if isinstance(value.get("content"), dict) and "role" not in value:
            return messages_read(value["content"])  # Gemini/ADK response
        kind = value.get("object")
        if kind == "response" and isinstance(value.get("output"), list):
            return _response_items_read(value["output"])  # OpenAI Responses API
        if kind == "chat.completion" and isinstance(value.get("choices"), list):
            # an OpenAI chat completion as the SDK returns it (MLflow's model-call output)
            return messages_read([c.get("message") for c in value["choices"] if type(c) is dict])
        state = value.get("state")
        if isinstance(state, dict) and "messages" not in value and "tool_call" in value:
            value = state  # LangGraph's tool_call_with_context: the call and the graph's state
        output = value.get("output")
        if isinstance(output, list) and len(value) == 1:
            return messages_read(output)  # LangChain JS's chain span: a list return as `{output}`
        for key in MESSAGE_LISTS:
            inner = value.get(key)
            if isinstance(inner, list):
                # LangChain passes a batch of conversations: [[...]]
                if (
                    len(inner) == 1
                    and isinstance(inner[0], list)
                    and message_read(inner[0]) is None
                ):
                    inner = inner[0]
                return messages_read(inner)
        if isinstance(value.get("toolCalls"), list) and "role" not in value:
            return [_turn_result_read(value)]
        single = message_read(value)
        return [single] if single is not None else None
    if not isinstance(value, list) or not value:
        return None
    if len(value) == 1 and isinstance(value[0], dict) and value[0].get("object") == "response":
        return messages_read(value[0])  # the OpenAI Agents SDK's streamed generation output
    if any(isinstance(item, dict) and item.get("type") in RESPONSE_CALL_ITEMS for item in value):
        return _response_items_read(value)
    messages = [m for m in (message_read(item) for item in value) if m is not None]
    return _results_named_in_order(_results_once(messages)) or None


def _results_once(messages: list[Message]) -> list[Message]:
    """Each tool result once: the botocore instrumentation's Bedrock events give a result as a
    `gen_ai.tool.message` and again as the next user turn's `toolResult` block, under the same
    call id. The later copy is dropped (its error mark kept), and a message left empty with it."""
    first: dict[tuple[str, str], ToolResult] = {}
    kept = []
    for message in messages:
        if not message.tool_results:
            kept.append(message)
            continue
        results = []
        for result in message.tool_results:
            key = (result.id, repr(result.content))
            earlier = first.get(key) if result.id else None
            if earlier is None:
                first[key] = result
                results.append(result)
            else:
                earlier.is_error = earlier.is_error or result.is_error
        message.tool_results = results
        if results or message.text or message.tool_calls:
            kept.append(message)
    return kept


def _results_named_in_order(messages: list[Message]) -> list[Message]:
    """Results that name neither their call nor their tool, each named by the tool of the call
    it answers in order: the latest turn's calls that name no id either (OpenLLMetry's Gemini
    instrumentation writes `tool_call` parts and `tool_call_response` parts with empty ids)."""
    waiting: list[ToolCall] = []
    for message in messages:
        if message.tool_calls:
            waiting = [call for call in message.tool_calls if not call.id]
        for result in message.tool_results:
            if not result.id and not result.name and waiting:
                result.name = waiting.pop(0).name
    return messages


# The Responses API's items that are no message: a call the model made, and its result.
RESPONSE_CALL_ITEMS = frozenset(("function_call", "function_call_output"))


def _response_items_read(items: list) -> list[Message] | None:
    """OpenAI Responses API items (a request's input, a response's output) as messages: the
    `function_call` items of one turn are one assistant message's calls, each
    `function_call_output` a tool message, `reasoning` and other items without a role left out."""
    messages: list[Message] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "function_call":
            last = messages[-1] if messages else None
            if last is None or last.role != "assistant" or last.tool_results:
                last = Message(role="assistant")
                messages.append(last)
            last.tool_calls.append(
                ToolCall(
                    id=str(item.get("call_id") or item.get("id") or ""),
                    name=str(item.get("name") or ""),
                    arguments=_arguments(item.get("arguments")),
                )
            )
        elif kind == "function_call_output":
            result = ToolResult(
                id=str(item.get("call_id") or ""), content=json_text_decoded(item.get("output"))
            )
            messages.append(Message(role="tool", tool_results=[result]))
        else:
            message = message_read(item)
            if message is not None:
                messages.append(message)
    return messages or None


def readable_text(value, *, role: str) -> str:
    """What a person would read as the value's sentence: from messages, the first `user` or the
    last `assistant` text; from a string, itself; from an object, its telling key. "" when the
    value holds no such text (never a JSON dump)."""
    value = json_text_decoded(value)
    if isinstance(value, str):
        return value.strip()
    messages = messages_read(value)
    if messages:
        return conversation_text(messages, role=role)
    if isinstance(value, list) and role == "user":
        return _task_list_text(value)
    if isinstance(value, dict):
        for key in TEXT_KEYS:
            if key in value:
                text = readable_text(value[key], role=role)
                if text:
                    return text
        scalars = [(k, v) for k, v in value.items() if isinstance(v, str | int | float)]
        if scalars and len(scalars) == len(value):
            return ", ".join(f"{k}: {v}" for k, v in scalars)
        if len(value) == 1:
            # A call's keyword arguments bound under its `**name` (DSPy's ReAct.forward's
            # `{"input_args": {"question": ...}}`): what it says is inside.
            (inner,) = value.values()
            if isinstance(inner, dict):
                return readable_text(inner, role=role)
    return ""


def _task_list_text(tasks: list) -> str:
    """A crew's task list (CrewAI's `crew_tasks`): each task's description and the output it
    expects, without the prompt template its model calls wrap them in."""
    if not all(isinstance(t, dict) and isinstance(t.get("description"), str) for t in tasks):
        return ""
    parts = []
    for task in tasks:
        text = task["description"].strip()
        expected = task.get("expected_output")
        if isinstance(expected, str) and expected.strip():
            text += f"\nExpected output: {expected.strip()}"
        parts.append(text)
    return "\n\n".join(parts)


def conversation_text(messages: list[Message], *, role: str) -> str:
    """The first user text, or the last assistant text, of a conversation."""
    candidates = [m for m in messages if m.role == role and m.text.strip()]
    if not candidates:
        return ""
    chosen = candidates[0] if role == "user" else candidates[-1]
    return chosen.text.strip()
