"""One table-driven mapping from span attributes to evalsite's span and trace fields.

Covers OpenTelemetry GenAI (current and pre-1.37 names, message events), OpenInference,
OpenLLMetry/Traceloop, Langfuse and the `agent.*` attributes agent code adds. Tables are
ordered by precedence: the first attribute present wins. Nothing here drops an attribute;
the caller stores the full attribute map on the span.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

import orjson

from traces.models import SpanKind

# (attribute, {value: kind}) tried in order; a value missing from the map falls through.
KIND_BY_ATTRIBUTE: list[tuple[str, dict[str, str]]] = [
    (
        "langfuse.observation.type",
        {
            "generation": SpanKind.LLM,
            "agent": SpanKind.AGENT,
            "tool": SpanKind.TOOL,
            "retriever": SpanKind.RETRIEVER,
            "embedding": SpanKind.RETRIEVER,
            "chain": SpanKind.CUSTOM,
            "span": SpanKind.CUSTOM,
        },
    ),
    (
        "openinference.span.kind",
        {
            "LLM": SpanKind.LLM,
            "AGENT": SpanKind.AGENT,
            "TOOL": SpanKind.TOOL,
            "RETRIEVER": SpanKind.RETRIEVER,
            "RERANKER": SpanKind.RETRIEVER,
            "EMBEDDING": SpanKind.RETRIEVER,
            "CHAIN": SpanKind.CUSTOM,
            "GUARDRAIL": SpanKind.CUSTOM,
            "EVALUATOR": SpanKind.CUSTOM,
            "PROMPT": SpanKind.CUSTOM,
        },
    ),
    (
        "gen_ai.operation.name",
        {
            "chat": SpanKind.LLM,
            "generate_content": SpanKind.LLM,
            "text_completion": SpanKind.LLM,
            "completion": SpanKind.LLM,
            "generate": SpanKind.LLM,
            "call_llm": SpanKind.LLM,
            "embeddings": SpanKind.RETRIEVER,
            "retrieval": SpanKind.RETRIEVER,
            "execute_tool": SpanKind.TOOL,
            "invoke_agent": SpanKind.AGENT,
            "agent_run": SpanKind.AGENT,
            "create_agent": SpanKind.AGENT,
            "invoke_workflow": SpanKind.AGENT,
            "plan": SpanKind.AGENT,
        },
    ),
    (
        "traceloop.span.kind",
        {
            "workflow": SpanKind.AGENT,
            "agent": SpanKind.AGENT,
            "tool": SpanKind.TOOL,
            "task": SpanKind.CUSTOM,
        },
    ),
]
# Any of these present means a tool span even without an operation name (e.g. Pydantic AI).
TOOL_MARKERS = (
    "gen_ai.tool.name",
    "gen_ai.tool.call.id",
    "tool.name",
    "gcp.vertex.agent.tool_call_args",
    "tool_arguments",
)
# Any of these present means a model call, also on spans with no gen_ai.* attribute at all.
LLM_MARKERS = (
    "gen_ai.request.model",
    "llm.model_name",
    "gen_ai.prompt.0.content",
    "llm.input_messages.0.message.role",
    "gcp.vertex.agent.llm_request",
    "gen_ai.input.messages",
)
# Span-tree JSON `type` values and their common synonyms.
KIND_SYNONYMS = {
    "agent": SpanKind.AGENT,
    "chain": SpanKind.CUSTOM,
    "workflow": SpanKind.AGENT,
    "llm": SpanKind.LLM,
    "generation": SpanKind.LLM,
    "chat": SpanKind.LLM,
    "model": SpanKind.LLM,
    "tool": SpanKind.TOOL,
    "function": SpanKind.TOOL,
    "retriever": SpanKind.RETRIEVER,
    "retrieval": SpanKind.RETRIEVER,
    "embedding": SpanKind.RETRIEVER,
    "custom": SpanKind.CUSTOM,
    "span": SpanKind.CUSTOM,
}

# Scalar span fields: first attribute present wins.
SPAN_FIELDS: dict[str, tuple[str, ...]] = {
    "tool_name": ("gen_ai.tool.name", "tool.name", "tool_call.function.name"),
    "tool_call_id": ("gen_ai.tool.call.id", "tool_call.id", "tool.id"),
    "model": (
        "langfuse.observation.model.name",
        "gen_ai.response.model",
        "gen_ai.request.model",
        "llm.response.model_name",
        "llm.model_name",
        "llm.request.model_name",
    ),
    "provider": ("gen_ai.provider.name", "gen_ai.system", "llm.provider", "llm.system"),
    "input_tokens": (
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.prompt_tokens",
        "llm.token_count.prompt",
    ),
    "output_tokens": (
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.completion_tokens",
        "llm.token_count.completion",
    ),
    "cost_usd": (
        "gen_ai.usage.cost",
        "gen_ai.usage.total_cost",
        "llm.cost.total",
        "operation.cost",  # pydantic-ai
    ),
    "error_type": ("error.type", "exception.type"),
    "agent_name": ("gen_ai.agent.name", "agent.name", "agent_name"),
}
# Values a trace takes from its spans; the root span's value is preferred.
TRACE_FIELDS: dict[str, tuple[str, ...]] = {
    "task": ("agent.task", "langfuse.trace.input"),
    "final_answer": ("agent.final_answer", "langfuse.trace.output"),
    "stop_reason": ("agent.stop_reason",),
    "task_type": ("agent.task_type", "evalsite.task_type"),
    "agent_name": ("gen_ai.agent.name", "agent.name", "service.name"),
    "agent_version": ("gen_ai.agent.version", "agent.version", "service.version"),
    "conversation_id": (
        "gen_ai.conversation.id",
        "session.id",
        "langfuse.session.id",
        "ai.telemetry.metadata.sessionId",
    ),
}
# Structured values: first present wins; a JSON string is decoded.
# Framework dialects: pydantic-ai (`tool_arguments`, `tool_response`, `pydantic_ai.all_messages`,
# `final_result`), google-adk (`gcp.vertex.agent.*`), OpenInference (`input.value`, ...).
INPUT_ATTRIBUTES = (
    "langfuse.observation.input",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.input",
    "tool_arguments",
    "gcp.vertex.agent.tool_call_args",
    "input.value",
    "tool.parameters",
    "traceloop.entity.input",
    "gen_ai.input.messages",
    "gcp.vertex.agent.llm_request",
    "pydantic_ai.all_messages",
    "all_messages_events",
    "gen_ai.prompt",
)
OUTPUT_ATTRIBUTES = (
    "langfuse.observation.output",
    "gen_ai.tool.call.result",
    "gen_ai.tool.output",
    "tool_response",
    "gcp.vertex.agent.tool_response",
    "output.value",
    "traceloop.entity.output",
    "gen_ai.output.messages",
    "gcp.vertex.agent.llm_response",
    "final_result",
    "gen_ai.completion",
)
# Flattened message lists: prefix -> what it fills.
FLATTENED_INPUT_PREFIXES = ("llm.input_messages", "gen_ai.prompt")
FLATTENED_OUTPUT_PREFIXES = ("llm.output_messages", "gen_ai.completion")
_FLATTENED_STARTS = tuple(p + "." for p in FLATTENED_INPUT_PREFIXES + FLATTENED_OUTPUT_PREFIXES)
# Span events that carry content (pre-1.37 GenAI); event name -> (field, attribute or None).
CONTENT_EVENTS: dict[str, tuple[str, str | None]] = {
    "gen_ai.content.prompt": ("input", "gen_ai.prompt"),
    "gen_ai.content.completion": ("output", "gen_ai.completion"),
    "gen_ai.system.message": ("input", None),
    "gen_ai.user.message": ("input", None),
    "gen_ai.assistant.message": ("input", None),
    "gen_ai.tool.message": ("input", None),
    "gen_ai.choice": ("output", None),
}
# Old provider spellings normalised to gen_ai.provider.name values.
PROVIDER_ALIASES = {
    "vertex_ai": "gcp.vertex_ai",
    "gemini": "gcp.gemini",
    "az.ai.inference": "azure.ai.inference",
    "az.ai.openai": "azure.ai.openai",
    "xai": "x_ai",
}
# A framework's own cost figures: a total, else input and output parts that add up to it.
COST_PART_ATTRIBUTES = (
    ("gen_ai.usage.input_cost", "gen_ai.usage.output_cost"),
    ("llm.cost.prompt", "llm.cost.completion"),
)
_INDEX = re.compile(r"^(\d+)\.(.+)$")


def json_maybe(value):
    """Decode a JSON string that holds an object or array; anything else stays as it is."""
    if isinstance(value, str):
        stripped = value.strip()
        if stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]"):
            try:
                return orjson.loads(stripped)
            except orjson.JSONDecodeError:
                pass  # json reads what orjson refuses: NaN, integers beyond 64 bits
            try:
                return json.loads(stripped)
            except ValueError:
                return value
    return value


def first_present(attributes: Mapping, names: tuple[str, ...]):
    for name in names:
        value = attributes.get(name)
        if value not in (None, ""):
            return value
    return None


def span_kind_from(attributes: Mapping, declared: str | None = None) -> str:
    """The evalsite kind of a span: declared type, then the convention tables, then markers."""
    if declared:
        kind = KIND_SYNONYMS.get(str(declared).lower())
        if kind:
            return kind
    for attribute, mapping in KIND_BY_ATTRIBUTE:
        value = attributes.get(attribute)
        if value is not None:
            kind = mapping.get(str(value)) or mapping.get(str(value).lower())
            if kind:
                return kind
    if any(name in attributes for name in TOOL_MARKERS):
        return SpanKind.TOOL
    if any(name in attributes for name in LLM_MARKERS):
        return SpanKind.LLM
    return SpanKind.CUSTOM


def unflatten(attributes: Mapping, prefix: str) -> list | None:
    """`prefix.0.message.role = user` style keys back to a list of nested dicts."""
    start = prefix + "."
    items: dict[int, dict] = {}
    for key, value in attributes.items():
        if not key.startswith(start):
            continue
        match = _INDEX.match(key[len(start) :])
        if not match:
            continue
        node = items.setdefault(int(match.group(1)), {})
        *path, leaf = match.group(2).split(".")
        for part in path:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        node[leaf] = json_maybe(value)
    if not items:
        return None
    return [_lists_from_index_dicts(items[i]) for i in sorted(items)]


def _lists_from_index_dicts(value):
    """Nested `{"0": ..., "1": ...}` dicts (from flattened keys) become lists again."""
    if isinstance(value, dict):
        if value and all(key.isdigit() for key in value):
            return [_lists_from_index_dicts(value[k]) for k in sorted(value, key=int)]
        return {key: _lists_from_index_dicts(item) for key, item in value.items()}
    return value


def _with_system_instructions(attributes: Mapping, messages):
    system = json_maybe(attributes.get("gen_ai.system_instructions"))
    if system and isinstance(messages, list):
        return [{"role": "system", "parts": system}, *messages]
    return messages


def span_content_from(attributes: Mapping, events: list[dict] | None = None) -> tuple:
    """(input, output) of a span from its attributes, flattened messages or content events."""
    value_in = first_present(attributes, INPUT_ATTRIBUTES)
    value_out = first_present(attributes, OUTPUT_ATTRIBUTES)
    if attributes.get("openinference.span.kind") == "LLM":
        # The structured messages are exact where `input.value` may be a text dump
        # (smolagents writes Python reprs there).
        if "llm.input_messages.0.message.role" in attributes:
            value_in = unflatten(attributes, "llm.input_messages")
        if "llm.output_messages.0.message.role" in attributes:
            value_out = unflatten(attributes, "llm.output_messages")
    # One pass decides whether any flattened message list is there at all (rarely).
    if (value_in is None or value_out is None) and any(
        key.startswith(_FLATTENED_STARTS) for key in attributes
    ):
        if value_in is None:
            for prefix in FLATTENED_INPUT_PREFIXES:
                if (value_in := unflatten(attributes, prefix)) is not None:
                    break
        if value_out is None:
            for prefix in FLATTENED_OUTPUT_PREFIXES:
                if (value_out := unflatten(attributes, prefix)) is not None:
                    break
    if value_out is None and any(attributes.get(name) == "" for name in OUTPUT_ATTRIBUTES):
        value_out = ""  # a tool that returned nothing (a `think` scratchpad) did return
    value_in = _with_system_instructions(attributes, json_maybe(value_in))
    value_out = json_maybe(value_out)
    if events and (value_in is None or value_out is None):
        from_events: dict[str, list] = {"input": [], "output": []}
        for event in events:
            target = CONTENT_EVENTS.get(event.get("name", ""))
            if target is None:
                continue
            which, attribute = target
            event_attrs = event.get("attributes") or {}
            if attribute:
                body = event_attrs.get(attribute)
            else:
                body = {"event": event["name"], **event_attrs}
            from_events[which].append(json_maybe(body))
        if value_in is None and from_events["input"]:
            value_in = _single(from_events["input"])
        if value_out is None and from_events["output"]:
            value_out = _single(from_events["output"])
    return value_in, value_out


def _single(values: list):
    return values[0] if len(values) == 1 else values


def span_fields_from(attributes: Mapping) -> dict:
    """Scalar span fields (tool name, model, tokens, cost, provider) from attributes."""
    out = {}
    for field, names in SPAN_FIELDS.items():
        value = first_present(attributes, names)
        if value is not None:
            out[field] = value
    if "provider" in out:
        out["provider"] = PROVIDER_ALIASES.get(str(out["provider"]), str(out["provider"]))
    for field in ("input_tokens", "output_tokens"):
        out[field] = _as_int(out.get(field))
    # Reasoning tokens are part of output already; cache reads are part of input.
    return out


def trace_fields_from(attributes: Mapping) -> dict:
    """Trace-level values (task, final answer, stop reason, agent) a span carries."""
    out = {}
    for field, names in TRACE_FIELDS.items():
        value = first_present(attributes, names)
        if value is not None:
            out[field] = value if isinstance(value, str) else json.dumps(value)
    return out


def cost_declared(attributes: Mapping):
    """The cost a span states for itself: a total, else the sum of its parts; None if none."""
    total = first_present(attributes, SPAN_FIELDS["cost_usd"])
    if total is not None:
        return total
    for names in COST_PART_ATTRIBUTES:
        parts = [attributes.get(name) for name in names]
        numbers = [p for p in parts if isinstance(p, (int, float)) and not isinstance(p, bool)]
        if numbers:
            return sum(numbers)
    return None


# Token columns are 32-bit; a sender's absurd count must not fail the whole request.
MAX_TOKENS = 2**31 - 1


def _as_int(value) -> int:
    try:
        return min(max(int(value), 0), MAX_TOKENS)
    except (TypeError, ValueError, OverflowError):
        return 0
