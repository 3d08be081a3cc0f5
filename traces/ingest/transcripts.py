"""Transcripts (Anthropic Messages, OpenAI chat) turned into the same span tree as span-tree JSON.

Each assistant turn becomes an llm span; each tool call it makes becomes a tool span right after
it, holding the arguments and the matching result (or error). The root agent span holds the
task (first user message) and the final answer (last assistant text).
"""

from __future__ import annotations

import contextlib
import hashlib
import json

from rest_framework.exceptions import ValidationError

from traces.ingest.records import SpanRecord, TraceExtras
from traces.ingest.span_tree import span_tree_records
from traces.models import SourceFormat


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


def _validate_messages(payload: dict) -> list[dict]:
    messages = payload.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ValidationError({"messages": ["Expected a non-empty list of messages."]})
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise ValidationError({f"messages[{index}]": ["Expected an object."]})
        if not isinstance(message.get("role"), str):
            raise ValidationError({f"messages[{index}].role": ["Every message needs a role."]})
    return messages


def _anthropic_steps(messages: list[dict], model: str | None) -> list[dict]:
    results: dict[str, dict] = {}
    for message in messages:
        if message["role"] == "user" and isinstance(message.get("content"), list):
            for block in message["content"]:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    results[str(block.get("tool_use_id", ""))] = block
    steps: list[dict] = []
    turn = 0
    for index, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        calls = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
        turn += 1
        steps.append(_llm_step(turn, model, messages[:index], message, _content_text(content)))
        for call_index, call in enumerate(calls):
            call_id = str(call.get("id", ""))
            if not isinstance(call.get("name"), str):
                raise ValidationError(
                    {f"messages[{index}].content.tool_use.name": ["A tool_use needs a name."]}
                )
            result = results.get(call_id)
            step = {
                "name": call["name"],
                "type": "tool",
                "tool_call_id": call_id,
                "input": call.get("input"),
                "output": _tool_result_value(result.get("content")) if result else None,
                "attributes": {"agent.step_index": turn, "transcript.call_index": call_index},
            }
            if result is None:
                step["error"] = "No tool_result for this tool_use."
            elif result.get("is_error"):
                step["error"] = _content_text(result.get("content")) or "tool error"
            steps.append(step)
    return steps


def _openai_steps(messages: list[dict], model: str | None) -> list[dict]:
    results = {
        str(m.get("tool_call_id", "")): m
        for m in messages
        if m["role"] == "tool" and m.get("tool_call_id") is not None
    }
    steps: list[dict] = []
    turn = 0
    for index, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        calls = message.get("tool_calls") or []
        if not isinstance(calls, list):
            raise ValidationError({f"messages[{index}].tool_calls": ["Expected a list."]})
        turn += 1
        steps.append(
            _llm_step(turn, model, messages[:index], message, _content_text(message.get("content")))
        )
        for call_index, call in enumerate(calls):
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                raise ValidationError(
                    {f"messages[{index}].tool_calls[{call_index}].function.name": ["Required."]}
                )
            arguments = function.get("arguments")
            if isinstance(arguments, str):
                # Models do emit broken JSON; then the raw text is what the judge should see.
                with contextlib.suppress(ValueError):
                    arguments = json.loads(arguments) if arguments.strip() else {}
            call_id = str(call.get("id", ""))
            result = results.get(call_id)
            output = _tool_result_value(result.get("content")) if result else None
            step = {
                "name": function["name"],
                "type": "tool",
                "tool_call_id": call_id,
                "input": arguments,
                "output": output,
                "attributes": {"agent.step_index": turn, "transcript.call_index": call_index},
            }
            if result is None:
                step["error"] = "No tool message answers this tool call."
            elif isinstance(output, dict) and output.get("error"):
                step["error"] = _content_text(output["error"])
            steps.append(step)
    return steps


def _llm_step(turn: int, model: str | None, history: list, message: dict, text: str) -> dict:
    step = {
        "name": f"assistant turn {turn}" + (f" ({model})" if model else ""),
        "type": "llm",
        "input": {"messages": len(history)},
        "output": message.get("content") if message.get("tool_calls") is None else message,
        "attributes": {"agent.step_index": turn},
    }
    if model:
        step["model"] = model
    usage = message.get("usage")
    if isinstance(usage, dict):
        step["usage"] = {
            "input_tokens": usage.get("input_tokens", usage.get("prompt_tokens")),
            "output_tokens": usage.get("output_tokens", usage.get("completion_tokens")),
        }
        step["usage"] = {k: v for k, v in step["usage"].items() if isinstance(v, int)}
    return step


def transcript_records(payload: dict) -> tuple[list[SpanRecord], TraceExtras, str, str]:
    """Validate a transcript and return span records, extras, trace id and source format."""
    if not isinstance(payload, dict):
        raise ValidationError({"non_field_errors": ["A transcript must be a JSON object."]})
    messages = _validate_messages(payload)
    fmt = payload.get("format") or transcript_format_detect(messages)
    if fmt not in (SourceFormat.ANTHROPIC, SourceFormat.OPENAI):
        raise ValidationError({"format": ["Use anthropic or openai for transcripts."]})
    model = payload.get("model") if isinstance(payload.get("model"), str) else None
    system = payload.get("system")
    if fmt == SourceFormat.OPENAI:
        system = system or next(
            (_content_text(m.get("content")) for m in messages if m["role"] == "system"), None
        )
    task = payload.get("task") or next(
        (
            _content_text(m.get("content"))
            for m in messages
            if m["role"] == "user" and _content_text(m.get("content")).strip()
        ),
        "",
    )
    final = payload.get("final_answer")
    if final is None:
        last = next((m for m in reversed(messages) if m["role"] == "assistant"), None)
        final = _content_text(last.get("content")) if last else ""
    steps = (_anthropic_steps if fmt == SourceFormat.ANTHROPIC else _openai_steps)(messages, model)
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    tree = {
        "trace_id": payload.get("trace_id") or hashlib.sha256(canonical.encode()).hexdigest()[:32],
        "name": f"invoke_agent {payload.get('agent_name') or 'agent'}",
        "type": "agent",
        "input": task,
        "output": final,
        "children": steps,
        "attributes": {"gen_ai.system_instructions": system} if system else {},
    }
    for key in ("task", "final_answer", "stop_reason", "task_type", "agent_name", "agent_version"):
        if payload.get(key) is not None:
            tree[key] = payload[key]
    tree.setdefault("task", task)
    tree.setdefault("final_answer", final)
    tools = payload.get("tools") or payload.get("available_tools")
    if tools is not None:
        tree["available_tools"] = tools
    records, extras, external_id = span_tree_records(tree)
    extras.content_hash = hashlib.sha256(canonical.encode()).hexdigest()
    return records, extras, external_id, fmt
