"""Transcripts (Anthropic Messages, OpenAI chat) turned into the same span tree as span-tree JSON.

Each assistant turn becomes an llm span whose input holds every message that came since the
previous turn (the first turn also the system prompt) and whose output is the assistant
message itself, so the whole conversation is kept, in order, on the spans. Each tool call it
makes becomes a tool span right after it with its arguments and its result. A result pairs
with the most recent unanswered call with its id, else with the oldest unanswered call of the
latest turn: never with a call already answered, since agents do reuse ids within a run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import dataclass, field

from core.errors import NON_FIELD, InvalidInput
from traces.ingest.failures import structured_failure
from traces.ingest.records import SpanRecord
from traces.ingest.span_tree import TRACE_KEYS, span_tree_records
from traces.ingest.task_choice import first_task_text
from traces.models import SourceFormat

# Top-level keys a transcript may carry; any other is refused by name, never ignored.
TRANSCRIPT_KEYS = frozenset(
    {"format", "messages", "model", "system", "tools", "available_tools", "metadata", "project"}
    | set(TRACE_KEYS)
)


def _content_text(content) -> str:
    """Text of a message content: a string, or the text blocks of a block list."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif isinstance(block, str):
                parts.append(block)
        return "\n".join(parts)
    return json.dumps(content, ensure_ascii=False)


def _tool_result_value(content):
    """A tool result as data: decoded JSON when it is JSON text, else the text."""
    text = _content_text(content) if not isinstance(content, dict) else None
    if text is None:
        return content
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            return json.loads(stripped)
        except ValueError:
            return text
    return text


def transcript_format_detect(messages: list) -> str:
    """anthropic when blocks carry tool_use/tool_result, openai when tool_calls or role tool."""
    for message in messages:
        if not isinstance(message, dict):
            continue
        if message.get("role") == "tool" or message.get("tool_calls"):
            return SourceFormat.OPENAI
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result") for b in content
        ):
            return SourceFormat.ANTHROPIC
    return SourceFormat.OPENAI


def _validate(payload: dict) -> list[dict]:
    unknown = sorted(set(payload) - TRANSCRIPT_KEYS)
    if unknown:
        raise InvalidInput(
            unknown[0],
            f"Not a transcript field. Put it in `context` or `metadata`, or use one "
            f"of: {', '.join(sorted(TRANSCRIPT_KEYS))}.",
        )
    messages = payload.get("messages")
    if not isinstance(messages, list) or not messages:
        raise InvalidInput("messages", "Expected a non-empty list of messages.")
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise InvalidInput(f"messages[{index}]", "Expected an object.")
        if not isinstance(message.get("role"), str):
            raise InvalidInput(f"messages[{index}].role", "Every message needs a role.")
    for key in ("context", "metadata"):
        if payload.get(key) is not None and not isinstance(payload[key], dict):
            raise InvalidInput(key, "Expected an object.")
    return messages


@dataclass
class _Call:
    turn: int
    call_id: str
    step: dict
    answered: bool = False


@dataclass
class _Conversation:
    """Walks a transcript once, building steps and pairing results to their calls."""

    model: str | None
    system: object
    steps: list[dict] = field(default_factory=list)
    calls: list[_Call] = field(default_factory=list)
    since_last_turn: list[dict] = field(default_factory=list)
    first_unsent: int = 0
    turn: int = 0

    def assistant(self, index: int, message: dict, calls: list[tuple[str, str, object]]) -> None:
        self.turn += 1
        self.steps.append(self._llm_step(index, message))
        self.since_last_turn, self.first_unsent = [], index + 1
        for call_index, (call_id, name, arguments) in enumerate(calls):
            step = {
                "name": name,
                "type": "tool",
                "tool_call_id": call_id,
                "input": arguments,
                "attributes": {"agent.step_index": self.turn, "transcript.call_index": call_index},
            }
            self.steps.append(step)
            self.calls.append(_Call(self.turn, call_id, step))

    def heard(self, message: dict) -> None:
        self.since_last_turn.append(message)

    def result(self, call_id: str, output, error: str) -> None:
        call = self._call_for(call_id)
        if call is None:
            return  # an answer to no call stays visible in the next turn's input messages
        call.answered = True
        call.step["output"] = output
        error = error or structured_failure(output, None)
        if error:
            call.step["error"] = error

    def finish(self, unanswered: str) -> None:
        for call in self.calls:
            if not call.answered:
                call.step["error"] = unanswered

    def _call_for(self, call_id: str) -> _Call | None:
        open_calls = [c for c in self.calls if not c.answered]
        if call_id:
            same_id = [c for c in open_calls if c.call_id == call_id]
            if same_id:
                return same_id[-1]
        if not open_calls:
            return None
        latest_turn = open_calls[-1].turn
        return next(c for c in open_calls if c.turn == latest_turn)

    def _llm_step(self, index: int, message: dict) -> dict:
        given: dict = {"messages": self.since_last_turn, "first_message_index": self.first_unsent}
        if self.turn == 1 and self.system:
            given = {"system": self.system, **given}
        step = {
            "name": f"assistant turn {self.turn}" + (f" ({self.model})" if self.model else ""),
            "type": "llm",
            "input": given,
            "output": message,
            "attributes": {"agent.step_index": self.turn, "transcript.message_index": index},
        }
        if self.model:
            step["model"] = self.model
        usage = message.get("usage")
        if isinstance(usage, dict):
            tokens = {
                "input_tokens": usage.get("input_tokens", usage.get("prompt_tokens")),
                "output_tokens": usage.get("output_tokens", usage.get("completion_tokens")),
            }
            step["usage"] = {k: v for k, v in tokens.items() if isinstance(v, int)}
        return step


def _anthropic_walk(conversation: _Conversation, messages: list[dict]) -> None:
    for index, message in enumerate(messages):
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        if message["role"] == "assistant":
            calls = []
            for block in blocks:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    if not isinstance(block.get("name"), str):
                        raise InvalidInput(
                            f"messages[{index}].content.tool_use.name", "A tool_use needs a name."
                        )
                    calls.append((str(block.get("id", "")), block["name"], block.get("input")))
            conversation.assistant(index, message, calls)
            continue
        conversation.heard(message)
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                output = _tool_result_value(block.get("content"))
                error = ""
                if block.get("is_error"):
                    error = _content_text(block.get("content")) or "tool error"
                conversation.result(str(block.get("tool_use_id", "")), output, error)
    conversation.finish("No tool_result for this tool_use.")


def _openai_walk(conversation: _Conversation, messages: list[dict]) -> None:
    for index, message in enumerate(messages):
        if message["role"] == "assistant":
            raw_calls = message.get("tool_calls") or []
            if not isinstance(raw_calls, list):
                raise InvalidInput(f"messages[{index}].tool_calls", "Expected a list.")
            calls = []
            for call_index, call in enumerate(raw_calls):
                function = call.get("function") if isinstance(call, dict) else None
                if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                    path = f"messages[{index}].tool_calls[{call_index}].function.name"
                    raise InvalidInput(path, "Required.")
                arguments = function.get("arguments")
                if isinstance(arguments, str):
                    # Models do emit broken JSON; then the raw text is what the judge should see.
                    with contextlib.suppress(ValueError):
                        arguments = json.loads(arguments) if arguments.strip() else {}
                calls.append((str(call.get("id", "")), function["name"], arguments))
            conversation.assistant(index, message, calls)
            continue
        conversation.heard(message)
        if message["role"] == "tool":
            output = _tool_result_value(message.get("content"))
            conversation.result(str(message.get("tool_call_id") or ""), output, "")
    conversation.finish("No tool message answers this tool call.")


def _first_user_text(messages: list[dict]) -> str:
    """The task: the first user text that is not a worked demonstration (task_choice)."""
    return first_task_text(
        _content_text(message.get("content")) for message in messages if message["role"] == "user"
    )


def _last_assistant_text(messages: list[dict]) -> str:
    for message in reversed(messages):
        if message["role"] == "assistant":
            text = _content_text(message.get("content")).strip()
            if text:
                return text
    return ""


def transcript_records(payload: dict):
    """Validate a transcript and return span records, extras, trace id and source format."""
    tree, canonical, fmt = transcript_span_tree(payload)
    records: list[SpanRecord]
    records, extras, external_id = span_tree_records(tree)
    extras.content_hash = hashlib.sha256(canonical.encode()).hexdigest()
    return records, extras, external_id, fmt


def transcript_span_tree(payload: dict) -> tuple[dict, str, str]:
    """Validate a transcript and return it as a span tree, its canonical JSON and its format."""
    if not isinstance(payload, dict):
        raise InvalidInput(NON_FIELD, "A transcript must be a JSON object.")
    messages = _validate(payload)
    fmt = payload.get("format") or transcript_format_detect(messages)
    if fmt not in (SourceFormat.ANTHROPIC, SourceFormat.OPENAI):
        raise InvalidInput("format", "Use anthropic or openai for transcripts.")
    model = payload.get("model") if isinstance(payload.get("model"), str) else None
    system = payload.get("system")
    if fmt == SourceFormat.OPENAI and not system:
        system = next(
            (_content_text(m.get("content")) for m in messages if m["role"] == "system"), None
        )
    conversation = _Conversation(model=model, system=payload.get("system"))
    (_anthropic_walk if fmt == SourceFormat.ANTHROPIC else _openai_walk)(conversation, messages)
    task = payload.get("task") or _first_user_text(messages)
    final = payload.get("final_answer")
    if final is None:
        final = _last_assistant_text(messages)
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    attributes: dict = {"gen_ai.system_instructions": system} if system else {}
    if conversation.since_last_turn:
        # Messages after the last assistant turn were given to no model call yet.
        attributes["transcript.trailing_messages"] = conversation.since_last_turn
    if payload.get("metadata"):
        attributes["metadata"] = payload["metadata"]
    tree = {
        "trace_id": payload.get("trace_id") or hashlib.sha256(canonical.encode()).hexdigest()[:32],
        "name": f"invoke_agent {payload.get('agent_name') or 'agent'}",
        "type": "agent",
        "input": task,
        "output": final,
        "children": conversation.steps,
        "attributes": attributes,
    }
    tree.update({key: payload[key] for key in TRACE_KEYS if payload.get(key) is not None})
    tree.setdefault("task", task)
    tree.setdefault("final_answer", final)
    tools = payload.get("tools") or payload.get("available_tools")
    if tools is not None:
        tree["available_tools"] = tools
    return tree, canonical, fmt
