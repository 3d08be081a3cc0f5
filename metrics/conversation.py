"""What the agent was told and what it said, read from any message form a span may hold.

LLM span inputs hold the message list the model was given: Anthropic blocks, OpenAI messages
or GenAI parts. The walk is generic: every string under a message of the wanted role counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from metrics.steps import SpanFacts, TraceFacts
from traces.models import Span, SpanKind, Trace

TOLD_ROLES = {"user", "system", "developer", "human"}
SAID_ROLES = {"assistant", "ai", "model"}
# Keys whose strings are not words anyone read: ids and the message machinery.
SKIPPED_KEYS = {"role", "type", "id", "tool_use_id", "tool_call_id", "cache_control", "name"}
# Message parts that carry tool calls and results (Anthropic, GenAI conventions, OpenAI
# responses): data passed between the model and its tools, not words of a person.
TOOL_PART_TYPES = {
    "tool_use", "tool_result", "tool_call", "tool_call_response", "function_call",
    "function_call_output",
}  # fmt: skip
SYSTEM_ATTRIBUTES = ("gen_ai.system_instructions", "gen_ai.system", "system", "system_prompt")


def _strings(value: Any, skip_keys: bool = True):
    """Every string inside `value`, keys of the message machinery left out."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, child in value.items():
            if not (skip_keys and key in SKIPPED_KEYS):
                yield from _strings(child, skip_keys)
    elif isinstance(value, (list, tuple)):
        for child in value:
            yield from _strings(child, skip_keys)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield str(value)


def conversation_messages(value: Any) -> list:
    """The message list an LLM span's input holds, in any of the shapes it comes in."""
    if isinstance(value, dict):
        for key in ("messages", "input", "prompt", "gen_ai.input.messages"):
            if isinstance(value.get(key), list):
                return value[key]
        return []
    return value if isinstance(value, list) else []


def message_texts(value: Any, roles: set[str], skip: int = 0) -> list[str]:
    """Strings of the messages in `value` whose role is one of `roles`.

    Tool results ride in user messages (Anthropic) but are outputs, not words of a person; they
    are left out here and counted as tool outputs where they belong. `skip` leaves out the
    first messages (already read from an earlier call that was sent them).
    """
    texts: list[str] = []
    for message in conversation_messages(value)[skip:]:
        if not isinstance(message, dict) or str(message.get("role", "")).lower() not in roles:
            continue
        for part in message.get("content"), message.get("parts"):
            if isinstance(part, list):
                part = [
                    b
                    for b in part
                    if not (isinstance(b, dict) and b.get("type") in TOOL_PART_TYPES)
                ]
            texts.extend(_strings(part))
    system = value.get("system") if isinstance(value, dict) else None
    if "system" in roles and isinstance(system, (str, list)):
        texts.extend(_strings(system))
    return texts


def system_prompt_texts(trace: TraceFacts, spans: Sequence[SpanFacts]) -> list[str]:
    """The system prompt wherever the trace keeps it: span attributes or the trace context."""
    texts: list[str] = []
    for source in [trace.context or {}, trace.attributes or {}] + [s.attributes for s in spans]:
        for key in SYSTEM_ATTRIBUTES:
            if isinstance(source, dict) and key in source and key != "gen_ai.system":
                texts.extend(_strings(source[key], skip_keys=False))
    return texts


def said_texts(trace: Trace, spans: list[Span]) -> list[str]:
    """What the agent said across the whole conversation: every assistant turn and the answer."""
    texts: list[str] = []
    for span in spans:
        if span.kind != SpanKind.LLM:
            continue
        output = span.output
        if isinstance(output, str):
            texts.append(output)
        elif isinstance(output, dict) and "role" in output:
            texts.extend(message_texts([output], SAID_ROLES))
        elif isinstance(output, dict):
            texts.extend(message_texts(output, SAID_ROLES) or list(_strings(output)))
        elif isinstance(output, list) and any(isinstance(b, dict) and "role" in b for b in output):
            texts.extend(message_texts(output, SAID_ROLES))
        elif isinstance(output, list):
            blocks = [
                b for b in output if not (isinstance(b, dict) and b.get("type") in TOOL_PART_TYPES)
            ]
            texts.extend(_strings(blocks))
    texts.append(trace.final_answer or "")
    return texts
