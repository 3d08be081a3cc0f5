"""The shape every ingest path produces before storage: spans as plain records."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from traces.ingest import conventions, prices
from traces.ingest.calls import lifecycle_emitter, tool_name_from_span_name
from traces.ingest.convention_tables import (
    LANGFUSE_LEVEL,
    LANGFUSE_STATUS_MESSAGE,
    OFFERED_TOOL_KEYS,
)
from traces.ingest.failures import structured_failure
from traces.ingest.logfire_values import logfire_reply_read
from traces.ingest.mlflow_spans import mlflow_fields, mlflow_values, streamed_reply
from traces.messages import (
    ToolResult,
    keyword_repr_read,
    message_str_content,
    messages_read,
    python_literal_maybe,
    readable_text,
)
from traces.models import SpanKind, SpanStatus
from traces.tool_definitions import AVAILABLE_TOOLS


@dataclass(slots=True)
class SpanRecord:
    trace_external_id: str
    span_id: str
    parent_span_id: str
    name: str
    kind: str = SpanKind.CUSTOM
    started_at: datetime | None = None
    ended_at: datetime | None = None
    input: object = None
    output: object = None
    attributes: dict = field(default_factory=dict)
    status: str = SpanStatus.UNSET
    error_message: str = ""
    tool_name: str = ""
    tool_call_id: str = ""
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: Decimal | int = 0  # int 0 when nothing is priced: COPY dumps a Decimal slowly
    component: str = ""
    # Trace-level values this span carries (task, final answer, stop reason, agent...).
    trace_fields: dict = field(default_factory=dict)

    @property
    def is_root(self) -> bool:
        return not self.parent_span_id

    @property
    def duration_ms(self) -> int | None:
        if self.started_at and self.ended_at and self.ended_at >= self.started_at:
            ms = int((self.ended_at - self.started_at).total_seconds() * 1000)
            # Beyond the column (24 days) the clock was wrong; the times themselves are kept.
            return ms if ms < 2**31 else None
        return None


@dataclass
class TraceExtras:
    """What a payload says about a whole trace beyond its spans."""

    task: str | None = None
    final_answer: str | None = None
    stop_reason: str | None = None
    task_type: str | None = None
    agent_name: str | None = None
    agent_version: str | None = None
    context: dict = field(default_factory=dict)
    attributes: dict = field(default_factory=dict)
    content_hash: str = ""
    tags: list = field(default_factory=list)


def span_record_build(
    *,
    trace_external_id: str,
    span_id: str,
    parent_span_id: str,
    name: str,
    attributes: dict,
    declared_kind: str | None = None,
    started_at: datetime | None = None,
    ended_at: datetime | None = None,
    input_value=None,
    output_value=None,
    events: list[dict] | None = None,
    is_error: bool = False,
    error_message: str = "",
) -> SpanRecord:
    """A SpanRecord with kind, tool, model, tokens, content and cost read from the conventions."""
    plan = conventions.span_plan(attributes)
    sent = attributes  # what is stored: as the sender wrote it
    if plan.mlflow:  # MLflow writes its values as JSON text: they are read decoded
        attributes = mlflow_values(attributes)
    if plan.logfire_message:
        name = conventions.logfire_span_name(name, attributes)
    kind = conventions.span_kind_from(attributes, declared_kind, plan)
    if plan.decided_call is not None and kind == _LLM:
        plan = plan.decided_call  # a model call naming the tool call it decided: read as a call
    fields = conventions.span_fields_from(attributes, plan)
    if input_value is None or output_value is None:
        found_in, found_out = conventions.span_content_from(attributes, events, plan)
        input_value = found_in if input_value is None else input_value
        output_value = found_out if output_value is None else output_value
    if plan.logfire_message and kind == _LLM and type(output_value) is dict:
        output_value = logfire_reply_read(output_value, attributes)  # Logfire's `response_data`
    if plan.mlflow:  # its usage and cost as objects; a streamed reply's calls in its chunks
        mlflow_fields(attributes, fields)
        if kind == _LLM:
            output_value = streamed_reply(output_value, events)
    if plan.component_values:  # what a Haystack tracer may send: one flag read for the rest
        if plan.repr_input and type(input_value) is str:
            # Haystack writes a component's inputs as their repr when they are no JSON
            input_value = keyword_repr_read(input_value)
        kind, input_value, output_value = _component_values_read(
            kind, fields, input_value, output_value
        )
    if kind == _TOOL:
        input_value, output_value = tool_arguments(input_value), tool_result(output_value)
    elif kind == _LLM and type(input_value) is dict:
        input_value = model_input(input_value)
    elif kind != _LLM:
        if plan.langfuse and type(input_value) is dict:  # `@observe`'s `{args, kwargs}`
            input_value = conventions.langfuse_arguments(input_value)
        if plan.aggregate_tokens:
            # OpenInference agent and chain spans repeat their model calls' token sums.
            fields["input_tokens"] = fields["output_tokens"] = 0
        # A key looked up before any call: most chain values are not wrapped.
        if type(input_value) is dict and "inputs" in input_value:
            input_value = chain_value(input_value)
        if type(output_value) is dict and "outputs" in output_value:
            output_value = chain_value(output_value)
    if plan.langfuse_usage:  # Langfuse's usage and cost by type, as JSON objects
        conventions.langfuse_usage_read(attributes, fields)
    model = str(fields.get("model") or "")[:200]
    if model and "/" in model:
        model = model_unrouted(model, fields.get("provider"))
    declared = fields.get("cost_usd")
    if declared is None and plan.cost_parts:  # cost_declared's sum of parts: no call without
        declared = conventions.cost_declared(attributes, fields, plan)
    cost = _cost(
        declared,
        model,
        fields["input_tokens"],
        fields["output_tokens"],
        str(fields.get("provider") or ""),
    )
    tool_name = str(fields.get("tool_name") or "")
    if kind == _TOOL and not tool_name:
        # `execute_tool get_weather`, `tools/call get_weather` name the tool when no attribute does.
        tool_name = tool_name_from_span_name(name)
    if not error_message and is_error:
        error_message = str(fields.get("error_type") or "")
    if not is_error and plan.tool_status and attributes["gen_ai.tool.status"] == "error":  # strands
        is_error, error_message = True, error_message or "tool status error"
    if not is_error and plan.langfuse and attributes.get(LANGFUSE_LEVEL) == "ERROR":
        is_error = True
        error_message = error_message or str(attributes.get(LANGFUSE_STATUS_MESSAGE) or "error")
    if not is_error and fields.get("error_type"):
        is_error = True
        error_message = error_message or str(fields["error_type"])
    if not is_error and kind == _TOOL:
        error_message = structured_failure(output_value, events)
        is_error = bool(error_message)
    if not is_error and plan.tool_error_flags:  # Haystack's `haystack.tool.error`, result untraced
        is_error = any(attributes[name] is True for name in plan.tool_error_flags)
        error_message = "tool error" if is_error else ""
    if (
        kind == _LLM
        and plan.openinference_kind
        and not plan.flattened  # no messages in or out
        and not fields["input_tokens"]
        and not fields["output_tokens"]
        and output_value is not None
        and not is_error
        and _no_call_made(attributes, output_value)
    ):
        kind = _CUSTOM  # LlamaIndex's `OpenAI._prepare_chat_with_tools`: it called no model
    status = _ERROR if is_error else _OK
    component = tool_name or str(fields.get("agent_name") or "") or name
    if kind == _AGENT and component == name and name[-1:].isdigit():
        # One agent whose iterations are lifecycle events (BeeAI's `agent.tool_calling.start-2`)
        # is one component, not one an iteration.
        component = lifecycle_emitter(name) or name
    # Most spans carry no trace-level value: no call for them.
    trace_values = conventions.trace_fields_from(attributes, plan) if plan.trace_picks else {}
    if plan.offered_tools:
        offered = conventions.offered_tools_from(attributes, plan)
        trace_values = {**trace_values, AVAILABLE_TOOLS: offered} if offered else trace_values
    elif (
        plan.component_values
        and type(input_value) is dict
        and "tools" in input_value
        and kind == _LLM
    ):
        # a model call's arguments that list its tools (Haystack's generators' `tools`)
        offered = tools_in_arguments(input_value["tools"])
        trace_values = {**trace_values, AVAILABLE_TOOLS: offered} if offered else trace_values
    elif plan.langfuse and kind == _LLM and type(input_value) is dict:
        # a Langfuse generation's input: the request's tools (or functions) beside its messages
        offered = conventions.first_present(input_value, OFFERED_TOOL_KEYS)
        if type(offered) is list and offered:
            trace_values = {**trace_values, AVAILABLE_TOOLS: offered}
    elif plan.langfuse and kind == _LLM and type(input_value) is list and input_value:
        # its LangChain handler's: the tools offered appended to the messages, read apart
        input_value, offered = conventions.langfuse_offered_split(input_value)
        if offered:
            trace_values = {**trace_values, AVAILABLE_TOOLS: offered}
    # Positional, in field order: twenty keyword arguments cost twice the rest of the call.
    return SpanRecord(
        trace_external_id,
        span_id,
        parent_span_id,
        (name or tool_name or kind)[:500],
        kind,
        started_at,
        ended_at,
        input_value,
        output_value,
        sent,
        status,
        error_message,
        tool_name[:200],
        str(fields.get("tool_call_id") or "")[:200],
        model,
        fields["input_tokens"],
        fields["output_tokens"],
        cost,
        component[:200],
        trace_values,
    )


# Module constants: each read of an enum member through its class is an attribute lookup.
_TOOL, _LLM, _AGENT, _CUSTOM = SpanKind.TOOL, SpanKind.LLM, SpanKind.AGENT, SpanKind.CUSTOM
_ERROR, _OK = SpanStatus.ERROR, SpanStatus.OK


def _component_values_read(kind, fields: dict, input_value, output_value) -> tuple:
    """(kind, input, output) of a Haystack component (its own tracer's, or OpenInference's):
    a ToolInvoker that ran one call is that call; a generator states its model and usage only
    in its replies' `meta`, which `fields` then takes."""
    if type(output_value) is not dict:
        return kind, input_value, output_value
    if TOOL_MESSAGES in output_value and kind != _LLM:
        invoked = one_tool_invoked(output_value[TOOL_MESSAGES])
        if invoked is not None:
            fields["tool_name"], fields["tool_call_id"] = invoked.origin.name, invoked.id
            output = {"error": invoked.content} if invoked.is_error else invoked.content
            return _TOOL, invoked.origin.arguments, output
    elif REPLIES in output_value and kind == _LLM and not fields["input_tokens"]:
        stated = replies_usage(output_value[REPLIES])
        fields["model"] = fields.get("model") or stated.pop("model", None)
        fields.update(stated)
    return kind, input_value, output_value


def _no_call_made(attributes: dict, output) -> bool:
    """A span OpenInference calls LLM, with no tokens and no messages in or out (the caller
    checks those), whose output is no reply: it answered without a model. LlamaIndex
    instruments every method of its model classes, so the helper that builds a call's request
    (`_prepare_chat_with_tools`, which returns the history and the tool schemas) is reported
    as a model call beside the real one."""
    if attributes.get("openinference.span.kind") != "LLM" or isinstance(output, str):
        return False
    replies = messages_read(output) or ()
    if any(m.role == "assistant" and (m.text.strip() or m.tool_calls) for m in replies):
        return False
    return not readable_text(output, role="assistant")


# Haystack's ToolInvoker answers with `{"tool_messages": [...], "state": ...}`; its generators
# with `{"replies": [...]}`, each reply's `meta` holding the model and the usage.
TOOL_MESSAGES, REPLIES = "tool_messages", "replies"
REPLY_TOKENS = (("input_tokens", "prompt_tokens"), ("output_tokens", "completion_tokens"))


def one_tool_invoked(messages) -> ToolResult | None:
    """The one tool result a component's tool messages hand back, when it names the call it
    answers (Haystack's ToolInvoker, which runs a step's calls in one span): that span is the
    call. None when it ran several or none."""
    results = [r for m in messages_read(messages) or () for r in m.tool_results]
    if len(results) == 1 and results[0].origin is not None:
        return results[0]
    return None


def replies_usage(replies) -> dict:
    """Model and tokens from the replies' `meta` (Haystack's ChatMessage: `{model, usage:
    {prompt_tokens, completion_tokens}}`), for a model call whose span states none."""
    found: dict = {}
    for reply in replies if isinstance(replies, list) else ():
        reply = keyword_repr_read(reply) if isinstance(reply, str) else reply
        meta = reply.get("meta") if isinstance(reply, dict) else None
        if not isinstance(meta, dict):
            continue
        usage = meta.get("usage") if isinstance(meta.get("usage"), dict) else {}
        for name, key in REPLY_TOKENS:
            if isinstance(usage.get(key), int):
                found[name] = found.get(name, 0) + usage[key]
        if meta.get("model") and "model" not in found:
            found["model"] = meta["model"]
    return found


def tools_in_arguments(tools) -> list:
    """The definitions of tools a call was given as objects, each a dict or its repr."""
    if not isinstance(tools, list):
        return []
    read = (keyword_repr_read(tool) if isinstance(tool, str) else tool for tool in tools)
    return [
        conventions.tool_definition(tool)
        for tool in read
        if isinstance(tool, dict) and tool.get("name")
    ]


# OpenLLMetry's LangChain instrumentation wraps a chain's values with the run's bookkeeping.
_CHAIN_INPUT_KEYS = frozenset(("inputs", "tags", "metadata", "kwargs"))
_CHAIN_OUTPUT_KEYS = frozenset(("outputs", "kwargs"))
_TOOL_INPUT_KEYS = frozenset(("input_str", "inputs", "tags", "metadata", "kwargs"))


def chain_value(value):
    """A chain's input or output as the chain had it: OpenLLMetry's LangChain instrumentation
    writes `{"inputs": ..., "tags", "metadata", "kwargs"}` and `{"outputs": ..., "kwargs"}`."""
    if type(value) is not dict:
        return value
    if "inputs" in value and value.keys() <= _CHAIN_INPUT_KEYS:
        return value["inputs"]
    if "outputs" in value and value.keys() <= _CHAIN_OUTPUT_KEYS:
        return value["outputs"]
    return value


def tool_arguments(value):
    """A tool's arguments as the call gave them: smolagents wraps them in `{args, kwargs}`,
    strands sends them as a `gen_ai.tool.message` event, OpenLIT's LangChain instrumentation as
    the repr of their dict."""
    if not isinstance(value, dict):
        # a string opening a dict that is no JSON (json_maybe read that): its Python repr
        return python_literal_maybe(value) if type(value) is str and value[:1] == "{" else value
    if value.get("event") == "gen_ai.tool.message":
        return conventions.json_maybe(value.get("content"))
    if (
        "input_str" in value
        and isinstance(value.get("inputs"), dict)
        and value.keys() <= _TOOL_INPUT_KEYS
    ):
        return value["inputs"]  # OpenLLMetry's LangChain tool input, `input_str` beside it
    if (
        isinstance(value.get("kwargs"), dict)
        and not value.get("args")
        and set(value) <= {"args", "kwargs", "sanitize_inputs_outputs"}
    ):
        return value["kwargs"]
    return value


def model_unrouted(model: str, provider) -> str:
    """The model a route names: LiteLLM records `openai/gpt-4o-mini`, its provider beside it,
    for the model the framework over it names `gpt-4o-mini`. A prefix that is not the span's
    own provider is part of the model's name (OpenRouter's `openai/gpt-4o`)."""
    route, _, name = model.partition("/")
    if name and provider and route.lower() == str(provider).lower():
        return name
    return model


def model_input(value: dict):
    """A model call's input: OpenInference's wrapper of a call records its arguments,
    `{"args": ["<prompt>"]}`, where the prompt is the one argument."""
    args = value.get("args")
    if (
        isinstance(args, list)
        and len(args) == 1
        and not value.get("kwargs")
        and set(value) <= {"args", "kwargs"}
    ):
        return conventions.json_maybe(args[0])
    return value


def tool_result(value):
    """A tool's result: LangChain wraps it in a ToolMessage `{type: tool, data}` (or its
    `{lc: 1, kwargs}` serialization, inside OpenLLMetry's `{output, kwargs}` or OpenInference
    JS's `{output}`);
    strands sends `[{"text": ...}]` in a `gen_ai.choice` event; google-adk `{"result": ...}`;
    LlamaIndex a ToolOutput `{blocks, tool_name, raw_input, raw_output, is_error}`, alone or in
    a ToolCallResult event `{tool_name, tool_kwargs, tool_id, tool_output}`; the Vercel
    AI SDK a tool's string return as JSON text again; OpenLIT's LangChain instrumentation the
    ToolMessage's `str()` (`content='…' name='…' tool_call_id='…'`); Langfuse's LangChain
    handler the ToolMessage's own fields (`{content, type: tool, tool_call_id, status, …}`)."""
    if type(value) is str and value[:8] == "content=":
        return message_str_content(value)
    if type(value) is str and value[:1] == '"' and value[-1:] == '"' and len(value) > 1:
        try:  # `"{\"id\": ...}"`, `"Completed."`: a tool's text, written as a JSON string
            value = conventions.json_maybe(json.loads(value))
        except ValueError:
            return value
    if not isinstance(value, dict):
        return value
    if "tool_output" in value and "tool_kwargs" in value:  # LlamaIndex's ToolCallResult event
        value = value["tool_output"]
        if not isinstance(value, dict):
            return conventions.json_maybe(value)
    if "raw_output" in value and "tool_name" in value and "raw_input" in value:
        said = value["raw_output"]
        if said is None:  # what the model was shown, as text blocks
            blocks = value.get("blocks") if isinstance(value.get("blocks"), list) else []
            said = "".join(str(b.get("text") or "") for b in blocks if isinstance(b, dict))
        said = conventions.json_maybe(said)
        return {"error": said} if value.get("is_error") is True else said
    if len(value) == 1 and "result" in value:
        return conventions.json_maybe(value["result"])  # google-adk wraps plain returns
    if value.get("event") == "gen_ai.choice":
        blocks = conventions.json_maybe(value.get("message"))
        if isinstance(blocks, list) and len(blocks) == 1 and isinstance(blocks[0], dict):
            return conventions.json_maybe(blocks[0].get("text", blocks[0]))
        return blocks
    if "kwargs" in value:  # a membership test first: most results are neither form below
        if len(value) == 2 and "output" in value:  # OpenLLMetry's LangChain tool output
            value = conventions.json_maybe(value["output"])
            if not isinstance(value, dict):
                return value
        if value.get("lc") == 1 and isinstance(value.get("kwargs"), dict):
            value = {"type": value["kwargs"].get("type"), "data": value["kwargs"]}  # serialized
    elif len(value) == 1 and "output" in value:  # OpenInference JS: `{output: <ToolMessage>}`
        inner = value["output"]
        if (
            isinstance(inner, dict)
            and inner.get("lc") == 1
            and isinstance(inner.get("kwargs"), dict)
            and inner.get("id", [""])[-1:] == ["ToolMessage"]  # its kwargs name no type
        ):
            value = {"type": "tool", "data": inner["kwargs"]}
    if value.get("type") == "tool":
        # a ToolMessage as `message_to_dict` writes it, `{type, data}`, or as its own fields
        # (pydantic's dump: Langfuse's LangChain handler), naming the call it answers
        data = value.get("data")
        if not isinstance(data, dict):
            if "tool_call_id" not in value or "content" not in value:
                return value
            data = value
        content = conventions.json_maybe(data.get("content"))
        if data.get("status") == "error":
            return {"error": content}
        return content
    return value


_NO_COST = Decimal("0.000000")


def _cost(
    declared, model: str, input_tokens: int, output_tokens: int, provider: str
) -> Decimal | int:
    """USD: the span's own figure if it has a usable one, else genai-prices' estimate."""
    if declared is None and not (model and (input_tokens or output_tokens)):
        # Most spans: no figure and nothing to price. An int, which psycopg dumps as a
        # numeric in a tenth of a Decimal's instructions.
        return 0
    cost = None
    if declared is not None and not isinstance(declared, bool):
        try:
            cost = Decimal(str(declared))
        except ArithmeticError:
            cost = None
    if cost is None or not cost.is_finite():
        cost = prices.cost_estimate(model, input_tokens, output_tokens, provider)
    # Compared, not min(max()): the builtins' argument parsing cost more than the comparisons.
    if cost < _NO_COST:
        cost = _NO_COST
    elif cost > prices.MAX_COST:
        cost = prices.MAX_COST
    return cost.quantize(_NO_COST)


def nul_free(value):
    """The value with NUL characters replaced: PostgreSQL text and jsonb refuse them."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd")
    if isinstance(value, dict):
        return {nul_free(key): nul_free(item) for key, item in value.items()}
    if isinstance(value, list):
        return [nul_free(item) for item in value]
    return value
