"""MLflow Tracing's spans, as its OTLP export sends them.

MLflow writes every attribute it sets as JSON text (`mlflow.spanType` is `"TOOL"` with its
quotes, a tool's string result a JSON string of it), and names its own: the span's type
(`mlflow.spanType`), its function's inputs and outputs (`mlflow.spanInputs`,
`mlflow.spanOutputs`), a model call's usage, model, provider, cost and tools offered
(`mlflow.chat.tokenUsage`, `mlflow.llm.model`, `mlflow.llm.provider`, `mlflow.llm.cost`,
`mlflow.chat.tools`). The convention tables name them; this module decodes the values for
them, and reads what is no single value (usage, cost, a streamed reply). A span is MLflow's
when it has `mlflow.spanType` (SpanPlan.mlflow): no other span pays for any of it.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping

import orjson

from traces.messages import ToolCall, messages_read
from traces.models import SpanKind

MLFLOW_SPAN_TYPE = "mlflow.spanType"
MLFLOW_TOKEN_USAGE = "mlflow.chat.tokenUsage"
MLFLOW_COST = "mlflow.llm.cost"
# A streamed call's chunks, each a span event `mlflow.chunk.item.<n>` holding the chunk as JSON.
CHUNK_EVENT_PREFIX, CHUNK_VALUE = "mlflow.chunk.item.", "mlflow.chunk.value"
_TOOL, _LLM = SpanKind.TOOL, SpanKind.LLM
# Never MLflow's JSON: what evalsite itself adds to a span (otlp.span_record_from), and the
# trace's tags, which MLflow's OTLP export writes on the root as plain text.
_PLAIN_PREFIXES = ("otel.", "mlflow.traceTag.")


def mlflow_values(attributes: Mapping) -> dict:
    """The attributes with the JSON text MLflow wrote decoded: what the convention tables
    read. The caller stores the attributes as sent."""
    decoded = dict(attributes)
    for name, value in attributes.items():
        if type(value) is str and not name.startswith(_PLAIN_PREFIXES):
            try:
                decoded[name] = orjson.loads(value)
            except orjson.JSONDecodeError:
                # what orjson refuses (NaN, integers beyond 64 bits) json reads; a plain string
                # (a resource's service.name) stays as it is
                with contextlib.suppress(ValueError):
                    decoded[name] = json.loads(value)
    return decoded


def mlflow_fields(values: Mapping, fields: dict) -> None:
    """A model call's tokens and cost, which MLflow states as one object each
    (`{"input_tokens", "output_tokens", "total_tokens"}`, `{"input_cost", "output_cost",
    "total_cost"}`), into the span's fields where no other attribute gave them."""
    usage = values.get(MLFLOW_TOKEN_USAGE)
    if isinstance(usage, dict):
        for field in ("input_tokens", "output_tokens"):
            count = usage.get(field)
            if not fields[field] and type(count) is int and count > 0:
                fields[field] = count
    cost = values.get(MLFLOW_COST)
    if isinstance(cost, dict) and fields.get("cost_usd") is None:
        total = cost.get("total_cost")
        if isinstance(total, int | float) and not isinstance(total, bool):
            fields["cost_usd"] = total


def streamed_reply(output, events: list[dict] | None):
    """A streamed chat completion's reply put back together from its chunk events, where the
    completion MLflow composed lost its tool calls (it joins the chunks' text only). The
    output as it is when it has calls, or there are no chunks to read."""
    if not events or not _reply_lacks_calls(output):
        return output
    chunks = [
        event.get("attributes", {}).get(CHUNK_VALUE)
        for event in events
        if event.get("name", "").startswith(CHUNK_EVENT_PREFIX)
    ]
    message: dict = {"role": "assistant", "content": ""}
    calls: dict[int, dict] = {}
    finish = "tool_calls"
    for chunk in chunks:
        try:
            chunk = orjson.loads(chunk) if isinstance(chunk, str) else chunk
        except orjson.JSONDecodeError:
            continue
        for choice in (chunk.get("choices") if isinstance(chunk, dict) else None) or ():
            delta = choice.get("delta") if isinstance(choice, dict) else None
            if not isinstance(delta, dict):
                continue
            message["content"] += delta.get("content") or ""
            finish = choice.get("finish_reason") or finish
            for part in delta.get("tool_calls") or ():
                _call_delta_add(calls, part)
    if not calls:
        return output
    message["tool_calls"] = [calls[index] for index in sorted(calls)]
    if isinstance(output, dict) and isinstance(output.get("choices"), list) and output["choices"]:
        choice = {**output["choices"][0], "message": message, "finish_reason": finish}
        return {**output, "choices": [choice, *output["choices"][1:]]}
    return message


def _reply_lacks_calls(output) -> bool:
    """A composed chat completion (or its message) with no tool call."""
    if not isinstance(output, dict):
        return False
    choices = output.get("choices")
    if isinstance(choices, list):
        if not choices or not isinstance(choices[0], dict):
            return False
        message = choices[0].get("message")
    else:
        message = output
    return isinstance(message, dict) and not message.get("tool_calls")


def _call_delta_add(calls: dict[int, dict], part) -> None:
    """One tool-call delta of a chunk (`{index, id, function: {name, arguments}}`) added to
    the call it continues."""
    if not isinstance(part, dict):
        return
    index = part.get("index") if type(part.get("index")) is int else len(calls)
    call = calls.setdefault(
        index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
    )
    call["id"] = part.get("id") or call["id"]
    function = part.get("function")
    if isinstance(function, dict):
        call["function"]["name"] += function.get("name") or ""
        call["function"]["arguments"] += function.get("arguments") or ""


def mlflow_call_ids_resolve(records: list) -> None:
    """MLflow's tool spans (`@mlflow.trace(span_type="TOOL")`) record the function's arguments
    and return, not the id of the call the model decided: each takes it, in place, from the
    first call decided before it started, in the same trace and request, of that tool with
    those arguments that no tool span took yet. One test a record for other requests."""
    waiting = [
        record
        for record in records
        if record.kind == _TOOL
        and not record.tool_call_id
        and MLFLOW_SPAN_TYPE in record.attributes
    ]
    if not waiting:
        return
    decided: dict[str, list[tuple[object, ToolCall]]] = {}
    for record in records:
        if record.kind == _LLM and MLFLOW_SPAN_TYPE in record.attributes:
            for message in messages_read(record.output) or ():
                for call in message.tool_calls:
                    if call.id:
                        decided.setdefault(record.trace_external_id, []).append(
                            (record.ended_at, call)
                        )
    for calls in decided.values():
        calls.sort(key=lambda pair: (pair[0] is None, pair[0] or 0))
    for record in sorted(waiting, key=lambda r: (r.started_at is None, r.started_at or 0)):
        calls = decided.get(record.trace_external_id, [])
        for index, (ended, call) in enumerate(calls):
            before = ended is None or record.started_at is None or ended <= record.started_at
            if before and call.name == record.tool_name and call.arguments == record.input:
                record.tool_call_id = call.id[:200]
                del calls[index]
                break
