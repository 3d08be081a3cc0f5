"""MLflow Tracing's spans (traces.ingest.mlflow_spans): JSON-text values, usage objects, a
streamed reply's calls in its chunk events, tool spans given the ids of the calls decided."""

import json
from datetime import UTC, datetime, timedelta

from traces.ingest.conventions import span_plan
from traces.ingest.mlflow_spans import mlflow_call_ids_resolve, mlflow_values
from traces.ingest.records import span_record_build
from traces.models import SpanKind, SpanStatus

T0 = datetime(2026, 12, 7, tzinfo=UTC)


def _record(name: str, attributes: dict, span_id: str = "s", events=None, at: int = 0, **kw):
    return span_record_build(
        trace_external_id="t",
        span_id=span_id,
        parent_span_id="root",
        name=name,
        attributes={key: json.dumps(value) for key, value in attributes.items()},
        events=events,
        started_at=T0 + timedelta(seconds=at),
        ended_at=T0 + timedelta(seconds=at + 1),
        **kw,
    )


def _completion(message: dict) -> dict:
    return {"object": "chat.completion", "model": "gpt-4o-mini", "choices": [{"message": message}]}


CALL = {"id": "call_7", "function": {"name": "lookup_order", "arguments": '{"order_id": "A-1"}'}}
DECIDING = _completion({"role": "assistant", "content": None, "tool_calls": [CALL]})


def test_values_read_decoded_and_stored_as_sent():
    record = _record(
        "lookup_order",
        {
            "mlflow.spanType": "TOOL",
            "mlflow.spanInputs": {"order_id": "A-1"},
            "mlflow.spanOutputs": "delivered",
        },
    )
    assert (record.kind, record.tool_name) == (SpanKind.TOOL, "lookup_order")
    assert (record.input, record.output) == ({"order_id": "A-1"}, "delivered")
    assert record.attributes["mlflow.spanType"] == '"TOOL"'
    # a plain string beside them (a resource's service.name), evalsite's own and a trace tag
    # (which MLflow writes as plain text) as they are
    sent = {"mlflow.spanType": '"LLM"', "service.name": "x", "otel.a": "1"}
    sent["mlflow.traceTag.n"] = "2"
    assert mlflow_values(sent) == {**sent, "mlflow.spanType": "LLM"}


def test_model_call_usage_model_cost_and_tools():
    record = _record(
        "Completions",
        {
            "mlflow.spanType": "CHAT_MODEL",
            "mlflow.spanInputs": {"messages": [{"role": "user", "content": "Where is A-1?"}]},
            "mlflow.spanOutputs": DECIDING,
            "mlflow.llm.model": "gpt-4o-mini",
            "mlflow.chat.tokenUsage": {"input_tokens": 11, "output_tokens": 7, "total_tokens": 18},
            "mlflow.llm.cost": {"input_cost": 0.25, "output_cost": 0.5, "total_cost": 0.75},
            "mlflow.chat.tools": [{"type": "function", "function": {"name": "lookup_order"}}],
        },
    )
    assert (record.kind, record.model) == (SpanKind.LLM, "gpt-4o-mini")
    assert (record.input_tokens, record.output_tokens) == (11, 7)
    assert str(record.cost_usd) == "0.750000"
    assert record.trace_fields["available_tools"][0]["function"]["name"] == "lookup_order"


def _chunk(delta: dict, finish=None) -> dict:
    chunk = {"object": "chat.completion.chunk", "choices": [{"delta": delta}]}
    chunk["choices"][0]["finish_reason"] = finish
    return {"name": "mlflow.chunk.item.0", "attributes": {"mlflow.chunk.value": json.dumps(chunk)}}


def test_streamed_reply_takes_its_calls_from_the_chunks():
    # MLflow composes a streamed completion from the chunks' text: the calls are lost there
    composed = _completion({"role": "assistant", "content": "", "tool_calls": None})
    attributes = {"mlflow.spanType": "CHAT_MODEL", "mlflow.spanOutputs": composed}
    events = [
        _chunk({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_7", **_named()}]}),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"order_id": '}}]}),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"A-1"}'}}]}, "tool_calls"),
    ]
    record = _record("Completions", attributes, events=events)
    message = record.output["choices"][0]["message"]
    assert message["tool_calls"] == [
        {
            "id": "call_7",
            "type": "function",
            "function": {"name": "lookup_order", "arguments": '{"order_id": "A-1"}'},
        }
    ]
    # a reply whose calls MLflow kept, or a text stream, stays as composed
    text = _record("Completions", attributes, events=[_chunk({"content": "Hi"})])
    assert text.output == composed


def _named() -> dict:
    return {"function": {"name": "lookup_order", "arguments": ""}}


def test_tool_spans_take_the_ids_of_the_calls_decided():
    deciding = {"mlflow.spanType": "CHAT_MODEL", "mlflow.spanOutputs": DECIDING}
    model = _record("Completions", deciding)
    tool_input = {"mlflow.spanType": "TOOL", "mlflow.spanInputs": {"order_id": "A-1"}}
    first = _record("lookup_order", tool_input, span_id="t1", at=2, is_error=True)
    again = _record("lookup_order", tool_input, span_id="t2", at=3)
    other = _record("lookup_order", {**tool_input, "mlflow.spanInputs": {"order_id": "B-2"}}, at=4)
    mlflow_call_ids_resolve([again, other, first, model])
    assert first.status == SpanStatus.ERROR
    # the first span of the call decided takes its id; a call is taken once, and only by the
    # tool with its arguments
    assert (first.tool_call_id, again.tool_call_id, other.tool_call_id) == ("call_7", "", "")
    # a tool span started before the call was decided takes none of its ids
    early = _record("lookup_order", tool_input, span_id="t0", at=-5)
    mlflow_call_ids_resolve([model, early])
    assert early.tool_call_id == ""


def test_other_spans_pay_one_flag():
    assert not span_plan({"gen_ai.operation.name": "chat"}).mlflow
    assert span_plan({"mlflow.spanType": '"LLM"'}).mlflow
