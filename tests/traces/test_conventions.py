"""traces.ingest.conventions: one table maps every naming style to the same span fields."""

import json
from decimal import Decimal

import pytest

from traces.ingest import conventions
from traces.ingest.records import span_record_build
from traces.models import SpanKind


@pytest.mark.parametrize(
    ("attributes", "declared", "kind"),
    [
        ({"gen_ai.operation.name": "chat"}, None, SpanKind.LLM),
        ({"gen_ai.operation.name": "generate_content"}, None, SpanKind.LLM),
        ({"gen_ai.operation.name": "text_completion"}, None, SpanKind.LLM),
        ({"gen_ai.operation.name": "execute_tool"}, None, SpanKind.TOOL),
        ({"gen_ai.operation.name": "invoke_agent"}, None, SpanKind.AGENT),
        ({"gen_ai.operation.name": "create_agent"}, None, SpanKind.AGENT),
        ({"gen_ai.operation.name": "invoke_workflow"}, None, SpanKind.AGENT),
        ({"gen_ai.operation.name": "plan"}, None, SpanKind.AGENT),
        ({"gen_ai.operation.name": "retrieval"}, None, SpanKind.RETRIEVER),
        ({"gen_ai.operation.name": "embeddings"}, None, SpanKind.RETRIEVER),
        ({"openinference.span.kind": "LLM"}, None, SpanKind.LLM),
        ({"openinference.span.kind": "TOOL"}, None, SpanKind.TOOL),
        ({"openinference.span.kind": "AGENT"}, None, SpanKind.AGENT),
        ({"openinference.span.kind": "RETRIEVER"}, None, SpanKind.RETRIEVER),
        ({"openinference.span.kind": "CHAIN"}, None, SpanKind.CUSTOM),
        ({"langfuse.observation.type": "generation"}, None, SpanKind.LLM),
        ({"traceloop.span.kind": "workflow"}, None, SpanKind.AGENT),
        ({"gen_ai.tool.name": "get_weather"}, None, SpanKind.TOOL),
        ({"gen_ai.tool.call.id": "call_1"}, None, SpanKind.TOOL),
        ({"gen_ai.request.model": "gpt-4o"}, None, SpanKind.LLM),
        ({}, "function", SpanKind.TOOL),
        ({"gen_ai.operation.name": "chat"}, "tool", SpanKind.TOOL),
        ({"http.method": "GET"}, None, SpanKind.CUSTOM),
    ],
)
def test_kind_from_each_convention(attributes, declared, kind):
    assert conventions.span_kind_from(attributes, declared) == kind


@pytest.mark.parametrize(
    ("attributes", "field", "value"),
    [
        ({"gen_ai.usage.input_tokens": 10}, "input_tokens", 10),
        ({"gen_ai.usage.prompt_tokens": 11}, "input_tokens", 11),
        ({"llm.token_count.prompt": 12}, "input_tokens", 12),
        ({"gen_ai.usage.output_tokens": 5}, "output_tokens", 5),
        ({"gen_ai.usage.completion_tokens": 6}, "output_tokens", 6),
        ({"llm.token_count.completion": 7}, "output_tokens", 7),
        ({"gen_ai.tool.name": "a", "tool.name": "b"}, "tool_name", "a"),
        ({"tool.name": "b"}, "tool_name", "b"),
        ({"gen_ai.tool.call.id": "call_1"}, "tool_call_id", "call_1"),
        (
            {"gen_ai.request.model": "gpt-4o", "gen_ai.response.model": "gpt-4o-2024"},
            "model",
            "gpt-4o-2024",
        ),
        ({"llm.model_name": "claude-3-5-haiku"}, "model", "claude-3-5-haiku"),
        ({"gen_ai.system": "vertex_ai"}, "provider", "gcp.vertex_ai"),
        ({"gen_ai.provider.name": "anthropic", "gen_ai.system": "openai"}, "provider", "anthropic"),
    ],
)
def test_scalar_fields_old_and_new_names(attributes, field, value):
    assert conventions.span_fields_from(attributes)[field] == value


@pytest.mark.parametrize(
    ("attributes", "expected_in", "expected_out"),
    [
        (
            {
                "gen_ai.tool.call.arguments": '{"city": "Paris"}',
                "gen_ai.tool.call.result": '{"temp": 14}',
            },
            {"city": "Paris"},
            {"temp": 14},
        ),
        ({"gen_ai.tool.input": '{"q": 1}', "gen_ai.tool.output": "plain"}, {"q": 1}, "plain"),
        ({"input.value": "hello", "output.value": '["a"]'}, "hello", ["a"]),
        (
            {
                "gen_ai.input.messages": json.dumps([{"role": "user", "parts": []}]),
                "gen_ai.system_instructions": json.dumps([{"type": "text", "content": "Be brief"}]),
            },
            [
                {"role": "system", "parts": [{"type": "text", "content": "Be brief"}]},
                {"role": "user", "parts": []},
            ],
            None,
        ),
        (
            {
                "gen_ai.prompt.0.role": "user",
                "gen_ai.prompt.0.content": "hi",
                "gen_ai.completion.0.content": "hello",
            },
            [{"role": "user", "content": "hi"}],
            [{"content": "hello"}],
        ),
        (
            {"llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "run"},
            None,
            [{"message": {"tool_calls": [{"tool_call": {"function": {"name": "run"}}}]}}],
        ),
    ],
)
def test_content_from_attributes(attributes, expected_in, expected_out):
    assert conventions.span_content_from(attributes) == (expected_in, expected_out)


def test_content_from_legacy_message_events():
    events = [
        {"name": "gen_ai.user.message", "attributes": {"content": "Where is A1042?"}},
        {"name": "gen_ai.choice", "attributes": {"index": 0, "finish_reason": "stop"}},
    ]
    value_in, value_out = conventions.span_content_from({}, events)
    assert value_in == {"event": "gen_ai.user.message", "content": "Where is A1042?"}
    assert value_out["finish_reason"] == "stop"


def test_agent_attributes_become_trace_fields():
    fields = conventions.trace_fields_from(
        {
            "agent.task": "Cancel order",
            "agent.final_answer": "Cancelled",
            "agent.stop_reason": "max_steps_exceeded",
            "gen_ai.agent.name": "support",
            "gen_ai.conversation.id": "conv_1",
        }
    )
    assert fields == {
        "task": "Cancel order",
        "final_answer": "Cancelled",
        "stop_reason": "max_steps_exceeded",
        "agent_name": "support",
        "conversation_id": "conv_1",
    }


def _chat_record(attributes: dict):
    return span_record_build(
        trace_external_id="t", span_id="s", parent_span_id="", name="chat", attributes=attributes
    )


def test_cost_from_attribute_or_price_table():
    declared = _chat_record({"gen_ai.usage.cost": 0.0123})
    assert declared.cost_usd == Decimal("0.012300")
    estimated = _chat_record(
        {
            "gen_ai.request.model": "claude-sonnet-4-5",
            "gen_ai.usage.input_tokens": 100_000,
            "gen_ai.usage.output_tokens": 0,
        }
    )
    assert estimated.cost_usd == Decimal("0.300000")


@pytest.mark.parametrize(
    ("model", "provider"),
    [("gpt-4.1-nano", "openai"), ("gemini-2.0-flash", "gcp.gemini"), ("o4-mini", "")],
)
def test_models_the_old_table_never_knew_are_priced(model, provider):
    record = _chat_record(
        {
            "gen_ai.request.model": model,
            "gen_ai.provider.name": provider,
            "gen_ai.usage.input_tokens": 10_000,
            "gen_ai.usage.output_tokens": 1_000,
        }
    )
    assert record.cost_usd > 0


@pytest.mark.parametrize(
    ("model", "provider", "read"),
    [
        # LiteLLM's route: the provider's name before the model's, the provider beside it
        ("openai/gpt-4o-mini", "openai", "gpt-4o-mini"),
        ("OpenAI/gpt-4o-mini", "openai", "gpt-4o-mini"),
        ("huggingface/meta-llama/Llama-3.1-8B", "huggingface", "meta-llama/Llama-3.1-8B"),
        # a slash that is part of the model's own name at that provider
        ("openai/gpt-4o", "openrouter", "openai/gpt-4o"),
        ("meta-llama/Llama-3.1-8B", "", "meta-llama/Llama-3.1-8B"),
    ],
)
def test_a_model_named_by_its_route_reads_as_the_model(model, provider, read):
    record = _chat_record(
        {
            "llm.model_name": model,
            "llm.provider": provider,
            "llm.token_count.prompt": 10_000,
            "llm.token_count.completion": 1_000,
        }
    )
    assert record.model == read
    if read == "gpt-4o-mini":  # priced as the model it is
        assert record.cost_usd == Decimal("0.002100")


@pytest.mark.parametrize("input_tokens", [1_000, 199_000, 200_000, 450_000])
def test_a_tiered_price_matches_genai_prices_on_both_sides_of_its_tier(input_tokens):
    from genai_prices import Usage, calc_price

    from traces.ingest.prices import cost_estimate

    usage = Usage(input_tokens=input_tokens, output_tokens=999)
    full = calc_price(usage, model_ref="claude-sonnet-4-5", provider_id="anthropic").total_price

    estimate = cost_estimate("claude-sonnet-4-5", input_tokens, 999, "anthropic")

    assert estimate.quantize(Decimal("0.000001")) == Decimal(str(full)).quantize(
        Decimal("0.000001")
    )


def test_a_frameworks_own_cost_parts_win_over_the_price():
    record = _chat_record(
        {
            "gen_ai.request.model": "gpt-4o",
            "gen_ai.usage.input_tokens": 10_000,
            "llm.cost.prompt": 0.5,
            "llm.cost.completion": 0.25,
        }
    )
    assert record.cost_usd == Decimal("0.750000")


def test_unknown_attributes_are_kept_and_error_type_marks_an_error():
    record = span_record_build(
        trace_external_id="t",
        span_id="s",
        parent_span_id="p",
        name="execute_tool get_weather",
        attributes={
            "gen_ai.operation.name": "execute_tool",
            "error.type": "TimeoutError",
            "acme.region": "eu-west-1",
        },
    )
    assert record.attributes["acme.region"] == "eu-west-1"
    assert record.tool_name == "get_weather"
    assert record.status == "error" and record.error_message == "TimeoutError"


@pytest.mark.parametrize("name", ["lookup_order.__call__", "lookup_order.acall"])
def test_a_tool_span_named_by_its_call_method_names_the_tool(name):
    # OpenInference's DSPy instrumentation names a tool span `<tool>.__call__` or `.acall`
    # and sets no tool name attribute
    record = span_record_build(
        trace_external_id="t",
        span_id="s",
        parent_span_id="p",
        name=name,
        attributes={"openinference.span.kind": "TOOL", "input.value": '{"order_id": "R-1"}'},
    )
    assert (record.kind, record.tool_name) == ("tool", "lookup_order")
    assert record.component == "lookup_order"
    assert record.name == name  # the span keeps its name


def test_a_flattened_key_with_a_digit_that_is_no_number_stays_a_key():
    from traces.ingest.conventions import unflatten

    messages = unflatten(
        {
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.contents.¹.text": "footnote",
            "llm.input_messages.0.message.contents.0.text": "hello",
        },
        "llm.input_messages",
    )

    contents = messages[0]["message"]["contents"]
    assert contents == {"¹": {"text": "footnote"}, "0": {"text": "hello"}}


def test_picks_follow_each_spans_values_when_spans_share_attribute_names():
    # given two spans with the same attribute names, the better name empty in the first
    names = ("gen_ai.response.model", "gen_ai.request.model")
    first = dict(zip(names, ("", "claude-haiku-4-5"), strict=True))
    second = dict(zip(names, ("claude-sonnet-4-5", "claude-haiku-4-5"), strict=True))
    # then each span's model is its own best non-empty value, whatever was read before
    assert conventions.span_fields_from(first)["model"] == "claude-haiku-4-5"
    assert conventions.span_fields_from(second)["model"] == "claude-sonnet-4-5"
    assert conventions.span_fields_from(first)["model"] == "claude-haiku-4-5"


def test_picks_stay_right_past_the_limit_of_remembered_attribute_names(monkeypatch):
    # given room for two sets of attribute names only
    monkeypatch.setattr(conventions, "_PLANS", {})
    monkeypatch.setattr(conventions, "_PLANS_LIMIT", 2)
    # when spans with five different sets of names are read, twice over
    spans = [{f"custom.{i}": "x", "gen_ai.tool.name": f"tool_{i}"} for i in range(5)]
    picked = [conventions.span_fields_from(span)["tool_name"] for span in spans + spans]
    # then every span got its own tool, and no more than two sets were kept
    assert picked == [f"tool_{i}" for i in range(5)] * 2
    assert len(conventions._PLANS) <= 2


def test_a_span_logfire_named_by_its_template_is_named_by_its_message():
    # Logfire names a span by its message template; the template stays in its attribute
    template = "Chat Completion with {request_data[model]!r}"
    attributes = {
        "gen_ai.request.model": "gpt-4o-mini",
        "logfire.msg_template": template,
        "logfire.msg": "Chat Completion with 'gpt-4o-mini'",
    }
    record = span_record_build(
        trace_external_id="t", span_id="s", parent_span_id="", name=template, attributes=attributes
    )
    assert record.name == "Chat Completion with 'gpt-4o-mini'"
    assert record.attributes["logfire.msg_template"] == template
    # a span named otherwise keeps its name (pydantic-ai's spans carry a message of their own)
    renamed = span_record_build(
        trace_external_id="t",
        span_id="s",
        parent_span_id="",
        name="invoke_agent support",
        attributes={**attributes, "logfire.msg_template": "{agent_name} run"},
    )
    assert renamed.name == "invoke_agent support"


def test_logfire_request_and_response_data_are_a_model_calls_messages():
    # Logfire's former attributes: the request body and `{message, usage}` of the reply
    request = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Where is A1?"}]}
    reply = {"message": {"role": "assistant", "content": "In Lyon."}, "usage": {}}
    record = _chat_record(
        {
            "gen_ai.request.model": "gpt-4o-mini",
            "request_data": json.dumps(request),
            "response_data": json.dumps(reply),
        }
    )
    assert (record.kind, record.input, record.output) == (SpanKind.LLM, request, reply)
    # the GenAI messages Logfire writes by default win over its `request_data: {model}`
    messages = [{"role": "user", "parts": [{"type": "text", "content": "Where is A1?"}]}]
    record = _chat_record(
        {"request_data": '{"model": "gpt-4o-mini"}', "gen_ai.input.messages": json.dumps(messages)}
    )
    assert record.input == messages
