"""One table-driven mapping from span attributes to evalsite's span and trace fields.

Covers OpenTelemetry GenAI (current and pre-1.37 names, message events), OpenInference,
OpenLLMetry/Traceloop, Langfuse and the `agent.*` attributes agent code adds, by the tables in
traces.ingest.convention_tables. Nothing here drops an attribute; the caller stores the full
attribute map on the span.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

import orjson

from traces.ingest.convention_tables import (
    AGENT_MARKERS,
    AGGREGATE_TOKENS,
    COMPONENT_TYPE,
    COMPONENT_TYPE_ENDINGS,
    CONTENT_EVENTS,
    COST_PART_ATTRIBUTES,
    DECIDED_CALL_ATTRIBUTES,
    FLATTENED_INPUT_PREFIXES,
    FLATTENED_OUTPUT_PREFIXES,
    FLATTENED_STARTS,
    INPUT_ATTRIBUTES,
    KIND_BY_ATTRIBUTE,
    KIND_SYNONYMS,
    LANGFUSE_COST,
    LANGFUSE_TYPE,
    LANGFUSE_USAGE,
    LLM_MARKERS,
    MODEL_MESSAGE_ATTRIBUTES,
    OUTPUT_ATTRIBUTES,
    PROVIDER_ALIASES,
    REPR_INPUT_ATTRIBUTES,
    SPAN_FIELDS,
    TOOL_ERROR_FLAGS,
    TOOL_MARKERS,
    TRACE_FIELDS,
    USAGE_CACHE_INPUT_KEYS,
    USAGE_OBJECT_KEYS,
)
from traces.ingest.mlflow_spans import MLFLOW_SPAN_TYPE
from traces.messages import keyword_repr_read
from traces.models import SpanKind

_INDEX = re.compile(r"^(\d+)\.(.+)$")
_JSON_OPENINGS = frozenset("{[")
_JSON_CLOSINGS = frozenset("}]")
# Read once: each SpanKind.X is a metaclass attribute lookup, and kinds are read a span.
_TOOL, _LLM, _CUSTOM, _AGENT = SpanKind.TOOL, SpanKind.LLM, SpanKind.CUSTOM, SpanKind.AGENT


def json_maybe(value):
    """Decode a JSON string that holds an object or array; anything else stays as it is."""
    if not isinstance(value, str):
        return value
    first = value[:1]
    if first in _JSON_OPENINGS and value[-1:] in _JSON_CLOSINGS:
        text = value  # the usual JSON text: no copy made
    elif first in _JSON_OPENINGS or first.isspace():
        text = value.strip()
        if not (text[:1] in _JSON_OPENINGS and text[-1:] in _JSON_CLOSINGS):
            return value
    else:
        return value  # most strings: no copy made to find out
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass  # json reads what orjson refuses: NaN, integers beyond 64 bits
    try:
        return json.loads(text)
    except ValueError:
        return value


def first_present(attributes: Mapping, names: tuple[str, ...]):
    for name in names:
        value = attributes.get(name)
        if value not in (None, ""):
            return value
    return None


def _slots_by_attribute() -> dict[str, tuple[tuple[str, int], ...]]:
    """Each attribute name the field tables read -> the fields it can fill, with its precedence."""
    tables = {**SPAN_FIELDS, **{f"trace.{k}": v for k, v in TRACE_FIELDS.items()}}
    tables.update({"input": INPUT_ATTRIBUTES, "output": OUTPUT_ATTRIBUTES})
    slots: dict[str, list[tuple[str, int]]] = {}
    for field, names in tables.items():
        for rank, name in enumerate(names):
            slots.setdefault(name, []).append((field, rank))
    return {name: tuple(found) for name, found in slots.items()}


_SLOTS = _slots_by_attribute()
_COST_PARTS = frozenset(name for names in COST_PART_ATTRIBUTES for name in names)


@dataclass(frozen=True, slots=True)
class SpanPlan:
    """What a span's attribute names decide before any value is read: worked out once for each
    set of names (spans of one instrumentation share them), so a span only reads values. Slots,
    not a NamedTuple: a slot is read in a few instructions, a tuple field through the type."""

    # For each field these names can fill, the names best first: span fields (SPAN_FIELDS),
    # trace fields (TRACE_FIELDS) and content (`input`, `output`).
    span_picks: tuple[tuple[str, tuple[str, ...]], ...]
    trace_picks: tuple[tuple[str, tuple[str, ...]], ...]
    content_picks: tuple[tuple[str, tuple[str, ...]], ...]
    # The OUTPUT_ATTRIBUTES among the names: one set to "" is an output that was empty.
    output_attributes: tuple[str, ...]
    # The KIND_BY_ATTRIBUTE entries whose attribute is among the names, in table order.
    kind_attributes: tuple[tuple[str, dict[str, str]], ...]
    # The kind the marker names give when no kind attribute decides.
    marker_kind: str
    # Some name is a flattened message key (`llm.input_messages.0.message.role`).
    flattened: bool
    # Some name is a cost part (COST_PART_ATTRIBUTES).
    cost_parts: bool
    # Some name is an OpenInference token sum (AGGREGATE_TOKENS).
    aggregate_tokens: bool
    # Names read by name on some spans only; absent from most.
    openinference_kind: bool
    system_instructions: bool
    tool_status: bool
    # The TOOL_ERROR_FLAGS among the names.
    tool_error_flags: tuple[str, ...]
    # The names that list tools offered to a model call (offered_tools_from).
    offered_tools: tuple[str, ...]
    # The Vercel AI SDK's `ai.response.toolCalls`: the reply is composed (ai_sdk_reply).
    ai_sdk_calls: bool
    # Haystack's `haystack.component.type`: the class name's ending gives the kind.
    component_type: bool
    # Some name is a REPR_INPUT_ATTRIBUTES one (Haystack's `haystack.component.input`): the
    # input is a Python repr where its values are no JSON.
    repr_input: bool
    # Haystack's own tracer or an OpenInference one: a component's values may be Haystack's
    # (a ToolInvoker's `tool_messages`, a generator's `replies` and `tools`).
    component_values: bool
    # Logfire's `logfire.msg_template` and `logfire.msg`: a span named by its template is
    # called by its message (logfire_span_name).
    logfire_message: bool
    # Langfuse's `langfuse.observation.type`: its values' shapes (langfuse_*), and its usage
    # and cost by type (`usage_details`, `cost_details`) when either is there.
    langfuse: bool
    langfuse_usage: bool
    # MLflow's `mlflow.spanType`: its values are JSON text (traces.ingest.mlflow_spans).
    mlflow: bool
    # LiteLLM's reply tool calls, flattened one per index (`gen_ai.completion.N.function_call.
    # name`, `.arguments`) beside messages that may leave them out (completion_calls_added).
    completion_calls: bool
    # A model call's messages beside a tool call's attributes (OpenLIT's `gen_ai.tool.name`,
    # `gen_ai.tool.call.id`, `gen_ai.tool.args` on a chat span: the call it decided): the plan
    # of the same names without those, by which a span that is a model call reads.
    decided_call: SpanPlan | None = None


# Plans by attribute names in order. Bounded, as a sender could make every span's names new.
_PLANS: dict[tuple[str, ...], SpanPlan] = {}
_PLANS_LIMIT = 2048


def span_plan(attributes: Mapping) -> SpanPlan:
    names = tuple(attributes)
    plan = _PLANS.get(names)
    if plan is None:
        if len(_PLANS) >= _PLANS_LIMIT:
            _PLANS.clear()
        plan = _PLANS[names] = _plan_for(names)
    return plan


def _plan_for(names: tuple[str, ...]) -> SpanPlan:
    by_field: dict[str, list[tuple[int, str]]] = {}
    for name in names:
        for field, rank in _SLOTS.get(name, ()):
            by_field.setdefault(field, []).append((rank, name))
    present = frozenset(names)
    if not present.isdisjoint(TOOL_MARKERS):
        marker_kind = _TOOL
    elif not present.isdisjoint(LLM_MARKERS):
        marker_kind = _LLM
    elif not present.isdisjoint(AGENT_MARKERS):
        marker_kind = _AGENT
    else:
        marker_kind = _CUSTOM
    picks = [(field, tuple(name for _, name in sorted(found))) for field, found in by_field.items()]
    return SpanPlan(
        span_picks=tuple(pick for pick in picks if pick[0] in SPAN_FIELDS),
        trace_picks=tuple(
            (field.removeprefix("trace."), names)
            for field, names in picks
            if field.startswith("trace.")
        ),
        content_picks=tuple(pick for pick in picks if pick[0] in ("input", "output")),
        output_attributes=tuple(name for name in OUTPUT_ATTRIBUTES if name in present),
        kind_attributes=tuple(entry for entry in KIND_BY_ATTRIBUTE if entry[0] in present),
        marker_kind=marker_kind,
        flattened=any(name.startswith(FLATTENED_STARTS) for name in names),
        cost_parts=not present.isdisjoint(_COST_PARTS),
        aggregate_tokens=not present.isdisjoint(AGGREGATE_TOKENS),
        openinference_kind="openinference.span.kind" in present,
        system_instructions="gen_ai.system_instructions" in present,
        tool_status="gen_ai.tool.status" in present,
        tool_error_flags=tuple(name for name in TOOL_ERROR_FLAGS if name in present),
        offered_tools=tuple(
            name for name in names if name in TOOL_DEFINITION_LISTS or _OFFERED_TOOL.match(name)
        ),
        ai_sdk_calls=AI_SDK_CALLS in present,
        component_type=COMPONENT_TYPE in present,
        repr_input=not present.isdisjoint(REPR_INPUT_ATTRIBUTES),
        component_values="openinference.span.kind" in present
        or any(name.startswith(HAYSTACK_PREFIX) for name in names),
        logfire_message=LOGFIRE_TEMPLATE in present and LOGFIRE_MESSAGE in present,
        langfuse=LANGFUSE_TYPE in present,
        langfuse_usage=LANGFUSE_USAGE in present or LANGFUSE_COST in present,
        mlflow=MLFLOW_SPAN_TYPE in present,
        completion_calls=COMPLETION_CALL in present,
        decided_call=None
        if present.isdisjoint(DECIDED_CALL_ATTRIBUTES)
        or present.isdisjoint(MODEL_MESSAGE_ATTRIBUTES)
        else _plan_for(tuple(name for name in names if name not in DECIDED_CALL_ATTRIBUTES)),
    )


# Tools offered to a model call: the GenAI conventions' list, else OpenInference's
# `llm.tools.N.tool.json_schema` or OpenLLMetry's `llm.request.functions.N.<part>`.
# Lists of definitions (JSON, or arrays of JSON texts): the GenAI one, the Vercel AI SDK's.
TOOL_DEFINITION_LISTS = (
    "gen_ai.tool.definitions",
    "ai.prompt.tools",
    "haystack.agent.tools",
    "mlflow.chat.tools",
)
# What of a tool read from its repr defines it (Haystack's Tool repr has its function too).
TOOL_DEFINITION_KEYS = ("name", "description", "parameters")
_OFFERED_TOOL = re.compile(
    r"^llm\.(?:tools\.(\d+)\.tool\.json_schema|request\.functions\.(\d+)\.(\w+))$"
)


AI_SDK_CALLS = "ai.response.toolCalls"
LOGFIRE_TEMPLATE, LOGFIRE_MESSAGE = "logfire.msg_template", "logfire.msg"
HAYSTACK_PREFIX = "haystack."


def logfire_span_name(name: str, attributes: Mapping) -> str:
    """Logfire names a span by its message template (`Chat Completion with
    {request_data[model]!r}`); its message, the template filled in, is what it is called.
    The template stays stored in its attribute."""
    message = attributes[LOGFIRE_MESSAGE]
    if name == attributes[LOGFIRE_TEMPLATE] and isinstance(message, str) and message:
        return message
    return name


def ai_sdk_reply(attributes: Mapping) -> dict:
    """A Vercel AI SDK provider call's reply: its text (`ai.response.text`) and its calls
    (`ai.response.toolCalls`, `[{toolCallId, toolName, input}]`; `args` before v5) as one
    assistant message."""
    reply: dict = {"role": "assistant", "content": attributes.get("ai.response.text") or ""}
    calls = json_maybe(attributes[AI_SDK_CALLS])
    reply["tool_calls"] = [
        {
            "id": call.get("toolCallId", ""),
            "function": {
                "name": call.get("toolName", ""),
                "arguments": call.get("input", call.get("args")),
            },
        }
        for call in (calls if isinstance(calls, list) else [])
        if isinstance(call, dict)
    ]
    return reply


def offered_tools_from(attributes: Mapping, plan: SpanPlan) -> list:
    """The tool definitions a span lists, as sent and in its order (traces.tool_definitions
    reads every form)."""
    for name in TOOL_DEFINITION_LISTS:
        if name in plan.offered_tools:
            listed = json_maybe(attributes[name])
            if isinstance(listed, str):  # Haystack's tools, which its tracer writes as a repr
                listed = keyword_repr_read(listed)
                listed = [tool_definition(t) for t in listed] if isinstance(listed, list) else []
            return listed if isinstance(listed, list) else []
    by_index: dict[int, object] = {}
    for name in plan.offered_tools:
        found = _OFFERED_TOOL.match(name)
        if found[1] is not None:
            by_index[int(found[1])] = attributes[name]
            continue
        parts = by_index.setdefault(int(found[2]), {})
        if isinstance(parts, dict):
            parts[found[3]] = json_maybe(attributes[name])
    return [by_index[index] for index in sorted(by_index)]


def tool_definition(tool):
    """A tool read from its repr as its definition, without its function and settings."""
    if not isinstance(tool, dict):
        return tool
    return {key: tool[key] for key in TOOL_DEFINITION_KEYS if key in tool}


def _picked(attributes: Mapping, picks: tuple[tuple[str, tuple[str, ...]], ...]) -> dict:
    """`first_present` for each of a plan's fields: the field's first non-empty value."""
    found: dict[str, object] = {}
    for field, candidates in picks:
        for name in candidates:
            value = attributes[name]
            # Most values are truthy: the two comparisons are for the rest (0, False, []).
            if value or (value is not None and value != ""):
                found[field] = value
                break
    return found


def span_kind_from(
    attributes: Mapping, declared: str | None = None, plan: SpanPlan | None = None
) -> str:
    """The evalsite kind of a span: declared type, then the convention tables, then markers."""
    if declared:
        kind = KIND_SYNONYMS.get(str(declared).lower())
        if kind:
            return kind
    plan = plan or span_plan(attributes)
    for attribute, mapping in plan.kind_attributes:
        value = attributes[attribute]
        if value is not None:
            kind = mapping.get(str(value)) or mapping.get(str(value).lower())
            if kind:
                # a generic step (OpenLLMetry's `task`) that names the tool it calls is that
                # call; the plan's marker is read first, by identity: most spans name no tool
                return _TOOL if plan.marker_kind is _TOOL and kind == _CUSTOM else kind
    if plan.component_type:
        name = str(attributes[COMPONENT_TYPE])
        for ending, kind in COMPONENT_TYPE_ENDINGS:
            if name.endswith(ending):
                return kind
    return plan.marker_kind


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
        if value and all(key.isdecimal() for key in value):
            return [_lists_from_index_dicts(value[k]) for k in sorted(value, key=int)]
        return {key: _lists_from_index_dicts(item) for key, item in value.items()}
    return value


def _with_system_instructions(attributes: Mapping, messages):
    system = attributes.get("gen_ai.system_instructions")
    if system is None:
        return messages
    system = json_maybe(system)
    if not system or not isinstance(messages, list):
        return messages
    first = messages[0] if messages else None
    if isinstance(first, dict) and first.get("role") == "system":
        return messages  # the messages carry the instructions already (OpenLIT sends both)
    return [{"role": "system", "parts": system}, *messages]


def _flattened_or_value(flattened: list, value):
    """OpenInference's flattened messages, unless one came out empty (parts it could not
    flatten: BeeAI's tool calls and tool results) while the `.value` holds them as JSON."""
    for item in flattened:
        message = item.get("message", item) if isinstance(item, dict) else item
        if isinstance(message, dict) and not any(
            message.get(key) for key in ("content", "contents", "tool_calls")
        ):
            decoded = json_maybe(value)
            return decoded if isinstance(decoded, list | dict) else flattened
    return flattened


def span_content_from(
    attributes: Mapping, events: list[dict] | None = None, plan: SpanPlan | None = None
) -> tuple:
    """(input, output) of a span from its attributes, flattened messages or content events."""
    plan = plan or span_plan(attributes)
    picks = _picked(attributes, plan.content_picks)
    value_in = picks.get("input")
    value_out = picks.get("output")
    if plan.openinference_kind and attributes["openinference.span.kind"] == "LLM":
        # The structured messages are exact where `input.value` may be a text dump
        # (smolagents writes Python reprs there).
        if "llm.input_messages.0.message.role" in attributes:
            value_in = _flattened_or_value(unflatten(attributes, "llm.input_messages"), value_in)
        if "llm.output_messages.0.message.role" in attributes:
            value_out = _flattened_or_value(unflatten(attributes, "llm.output_messages"), value_out)
    # The names decide whether any flattened message list is there at all (rarely).
    if (value_in is None or value_out is None) and plan.flattened:
        if value_in is None:
            for prefix in FLATTENED_INPUT_PREFIXES:
                if (value_in := unflatten(attributes, prefix)) is not None:
                    break
        if value_out is None:
            for prefix in FLATTENED_OUTPUT_PREFIXES:
                if (value_out := unflatten(attributes, prefix)) is not None:
                    break
    if (
        value_out is None
        and plan.output_attributes
        and any(attributes[name] == "" for name in plan.output_attributes)
    ):
        value_out = ""  # a tool that returned nothing (a `think` scratchpad) did return
    if plan.ai_sdk_calls:
        value_out = ai_sdk_reply(attributes)
    value_in = json_maybe(value_in)
    if plan.system_instructions:  # rarely sent: no call without it
        value_in = _with_system_instructions(attributes, value_in)
    value_out = json_maybe(value_out)
    if plan.completion_calls:
        value_out = completion_calls_added(attributes, value_out)
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
            elif type(logged := json_maybe(event_attrs.get("body"))) is dict:
                # a log record whose body is its message as JSON text (Semantic Kernel logs
                # through Python's logging): the message, without the logger's attributes
                body = {"event": event["name"], **logged}
            else:
                body = {"event": event["name"], **event_attrs}
            from_events[which].append(json_maybe(body))
        if value_in is None and from_events["input"]:
            value_in = _single(from_events["input"])
        if value_out is None and from_events["output"]:
            value_out = _single(from_events["output"])
    return value_in, value_out


# LiteLLM writes each tool call of a reply as `gen_ai.completion.<call index>.function_call.
# <name | arguments>` (no call id), while its `gen_ai.output.messages` leaves the calls out.
COMPLETION_CALL = "gen_ai.completion.0.function_call.name"


def completion_calls_added(attributes: Mapping, value_out):
    """The reply `value_out` with the tool calls flattened under `gen_ai.completion` (LiteLLM's
    `N.function_call`), where its own assistant message lists none: added to that message, or
    the reply when there is none."""
    calls = [
        {"type": "function", "function": item["function_call"]}
        for item in unflatten(attributes, "gen_ai.completion") or ()
        if isinstance(item, dict) and isinstance(item.get("function_call"), dict)
    ]
    if not calls:
        return value_out
    messages = value_out if isinstance(value_out, list) else [value_out]
    replies = [m for m in messages if isinstance(m, dict) and m.get("role") == "assistant"]
    if not replies:
        return [{"role": "assistant", "tool_calls": calls}]
    if any(_names_calls(reply) for reply in replies):
        return value_out
    reply = {**replies[-1], "tool_calls": calls}
    return [reply if message is replies[-1] else message for message in messages]


def _names_calls(message: dict) -> bool:
    """The message lists a tool call, as OpenAI's `tool_calls` or as a GenAI part."""
    parts = message.get("parts") if isinstance(message.get("parts"), list) else ()
    return bool(message.get("tool_calls")) or any(
        isinstance(part, dict) and part.get("type") == "tool_call" for part in parts
    )


def _single(values: list):
    return values[0] if len(values) == 1 else values


def span_fields_from(attributes: Mapping, plan: SpanPlan | None = None) -> dict:
    """Scalar span fields (tool name, model, tokens, cost, provider) from attributes."""
    out = _picked(attributes, (plan or span_plan(attributes)).span_picks)
    provider = out.get("provider")
    if provider is not None:
        provider = str(provider)
        out["provider"] = PROVIDER_ALIASES.get(provider, provider)
    # Most counts are in range already: no call for them. Written out, not looped: a span each.
    tokens = out.get("input_tokens")
    out["input_tokens"] = (
        tokens if type(tokens) is int and 0 <= tokens <= MAX_TOKENS else _as_int(tokens)
    )
    tokens = out.get("output_tokens")
    out["output_tokens"] = (
        tokens if type(tokens) is int and 0 <= tokens <= MAX_TOKENS else _as_int(tokens)
    )
    # Reasoning tokens are part of output already; cache reads are part of input.
    return out


def trace_fields_from(attributes: Mapping, plan: SpanPlan | None = None) -> dict:
    """Trace-level values (task, final answer, stop reason, agent) a span carries."""
    out = _picked(attributes, (plan or span_plan(attributes)).trace_picks)
    for field, value in out.items():
        if not isinstance(value, str):
            out[field] = json.dumps(value)
    return out


def cost_declared(attributes: Mapping, fields: dict | None = None, plan: SpanPlan | None = None):
    """The cost a span states for itself: a total, else the sum of its parts; None if none.
    `fields` are the span's span_fields_from, when read already."""
    plan = plan or span_plan(attributes)
    fields = span_fields_from(attributes, plan) if fields is None else fields
    total = fields.get("cost_usd")
    if total is not None or not plan.cost_parts:
        return total
    for names in COST_PART_ATTRIBUTES:
        parts = [attributes.get(name) for name in names]
        numbers = [p for p in parts if isinstance(p, (int, float)) and not isinstance(p, bool)]
        if numbers:
            return sum(numbers)
    return None


def langfuse_usage_read(attributes: Mapping, fields: dict) -> None:
    """A Langfuse generation's tokens and cost from its usage and cost by type (`{"input":
    120, "output": 30}`, or the provider's usage object its OpenAI wrapper passes on), into
    `fields` where no attribute of their own gave them."""
    usage = json_maybe(attributes.get(LANGFUSE_USAGE))
    if type(usage) is dict and not (fields["input_tokens"] or fields["output_tokens"]):
        counts = {key: value for key, value in usage.items() if type(value) is int}
        for input_key, output_key in USAGE_OBJECT_KEYS:
            if input_key in counts or output_key in counts:
                taken = counts.get(input_key, 0)
                if input_key == "input_tokens":
                    taken += sum(counts.get(key, 0) for key in USAGE_CACHE_INPUT_KEYS)
                fields["input_tokens"] = _as_int(taken)
                fields["output_tokens"] = _as_int(counts.get(output_key, 0))
                break
        else:  # Langfuse's own types: every one holding `input` (or `output`) is a part of it
            fields["input_tokens"] = _as_int(sum(v for k, v in counts.items() if "input" in k))
            fields["output_tokens"] = _as_int(sum(v for k, v in counts.items() if "output" in k))
    cost = json_maybe(attributes.get(LANGFUSE_COST))
    if type(cost) is dict and fields.get("cost_usd") is None:
        amounts = [v for v in cost.values() if type(v) in (int, float)]
        total = cost.get("total")
        if type(total) in (int, float):
            fields["cost_usd"] = total
        elif amounts:
            fields["cost_usd"] = sum(amounts)


def langfuse_arguments(value):
    """A function's arguments as Langfuse's `@observe` records them, `{"args": [...],
    "kwargs": {...}}`: the one argument given, or the keyword arguments given alone; else
    as recorded."""
    if type(value) is not dict or not value.keys() <= _OBSERVED_KEYS:
        return value
    args, kwargs = value.get("args"), value.get("kwargs")
    if not kwargs and type(args) is list and len(args) == 1:
        return json_maybe(args[0])
    if not args and type(kwargs) is dict and kwargs:
        return kwargs
    return value


_OBSERVED_KEYS = frozenset(("args", "kwargs"))


def langfuse_offered_split(messages: list) -> tuple[list, list]:
    """A Langfuse generation's input messages and the tools offered among them: its LangChain
    handler appends each tool the model was given to the messages, as `{"role": "tool",
    "content": <the tool's definition>}` (OpenAI's function format), after the history. A
    tool's result names the call it answers (`tool_call_id`) and holds text, not a definition."""
    cut = len(messages)
    while cut and _offered_tool_message(messages[cut - 1]):
        cut -= 1
    if cut == len(messages):
        return messages, []
    return messages[:cut], [message["content"] for message in messages[cut:]]


def _offered_tool_message(item) -> bool:
    if type(item) is not dict or item.get("role") != "tool" or "tool_call_id" in item:
        return False
    content = item.get("content")
    return type(content) is dict and (
        type(content.get("function")) is dict
        or ("name" in content and ("parameters" in content or "input_schema" in content))
    )


# Token columns are 32-bit; a sender's absurd count must not fail the whole request.
MAX_TOKENS = 2**31 - 1


def _as_int(value) -> int:
    if type(value) is int and 0 <= value <= MAX_TOKENS:
        return value
    if value is None:
        return 0
    try:
        return min(max(int(value), 0), MAX_TOKENS)
    except (TypeError, ValueError, OverflowError):
        return 0
