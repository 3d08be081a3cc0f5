"""The one multi-turn support conversation of bench/fidelity.py, and its shapes: OpenAI and
Anthropic messages, GenAI message parts, a span tree, and OTel spans in each dialect."""

import json
import uuid

SYSTEM = "You are Acme's booking assistant."
CODE = "QX7P2L"
# (role, text or None, tool call (id, name, arguments) or None, tool result (id, text) or None)
CONVERSATION = [
    ("user", "I need to change my booking.", None, None),
    ("assistant", "Sure. What is your booking code?", None, None),
    ("user", f"It is {CODE}, move it to Friday.", None, None),
    ("assistant", None, ("call_1", "get_booking", {"code": CODE}), None),
    ("tool", None, None, ("call_1", "Error: booking service timeout")),
    ("assistant", None, ("call_1", "get_booking", {"code": CODE}), None),
    ("tool", None, None, ("call_1", json.dumps({"code": CODE, "day": "Wed"}))),
    ("assistant", None, ("call_2", "think", {}), None),
    ("tool", None, None, ("call_2", "")),
    ("assistant", None, ("call_3", "move_booking", {"code": CODE, "day": "Fri"}), None),
    ("tool", None, None, ("call_3", json.dumps({"status": "moved"}))),
    ("assistant", "Moved. Which seat do you prefer?", None, None),
    ("user", "Window, please.", None, None),
    ("assistant", f"Done: {CODE} now departs Friday, window seat.", None, None),
]
TASK = CONVERSATION[0][1]
FINAL = CONVERSATION[-1][1]
EXPECTED_TOOLS = [
    ("get_booking", "Error: booking service timeout", True),
    ("get_booking", {"code": CODE, "day": "Wed"}, False),
    ("think", "", False),
    ("move_booking", {"status": "moved"}, False),
]


def openai_messages() -> list[dict]:
    out = [{"role": "system", "content": SYSTEM}]
    for role, text, call, result in CONVERSATION:
        if call:
            call_id, name, args = call
            function = {"name": name, "arguments": json.dumps(args)}
            out.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": call_id, "type": "function", "function": function}],
                }
            )
        elif result:
            out.append({"role": "tool", "tool_call_id": result[0], "content": result[1]})
        else:
            out.append({"role": role, "content": text})
    return out


def anthropic_messages() -> list[dict]:
    out = []
    for role, text, call, result in CONVERSATION:
        if call:
            block = {"type": "tool_use", "id": call[0], "name": call[1], "input": call[2]}
            out.append({"role": "assistant", "content": [block]})
        elif result:
            out.append(
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": result[0], "content": result[1]}
                    ],
                }
            )
        else:
            out.append({"role": role, "content": [{"type": "text", "text": text}]})
    return out


def genai_parts(message: dict) -> dict:
    """An OpenAI chat message in the GenAI `parts` form (gen_ai.input.messages)."""
    if message["role"] == "tool":
        part = {
            "type": "tool_call_response",
            "id": message["tool_call_id"],
            "response": message["content"],
        }
        return {"role": "tool", "parts": [part]}
    parts = [{"type": "text", "content": message["content"]}] if message.get("content") else []
    for call in message.get("tool_calls") or []:
        fn = call["function"]
        parts.append(
            {
                "type": "tool_call",
                "id": call["id"],
                "name": fn["name"],
                "arguments": json.loads(fn["arguments"]),
            }
        )
    return {"role": message["role"], "parts": parts}


def model_calls():
    """(history given, reply, tool call and its result or None) for each assistant turn."""
    messages = openai_messages()
    for index, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        call = result = None
        if message.get("tool_calls"):
            call = message["tool_calls"][0]
            result = messages[index + 1]
        yield messages[:index], message, call, result


def span_tree() -> dict:
    children = []
    for history, reply, call, result in model_calls():
        children.append(
            {
                "name": "chat",
                "type": "llm",
                "model": "gpt-4o-mini",
                "input": history,
                "output": reply,
            }
        )
        if call:
            fn = call["function"]
            children.append(
                {
                    "name": fn["name"],
                    "type": "tool",
                    "tool_call_id": call["id"],
                    "input": json.loads(fn["arguments"]),
                    "output": result["content"],
                }
            )
    return {
        "trace_id": uuid.uuid4().hex,
        "name": "support agent",
        "type": "agent",
        "children": children,
    }


def otel_spans(dialect: str):
    """The conversation recorded with the OpenTelemetry SDK as GenAI or OpenInference spans."""
    tracer, memory = recording_tracer()
    with agent_span(tracer):
        for history, reply, call, result in model_calls():
            with tracer.start_as_current_span("chat gpt-4o-mini") as span:
                for key, value in llm_attributes(dialect, history, reply).items():
                    span.set_attribute(key, value)
            if call:
                with tracer.start_as_current_span(
                    f"execute_tool {call['function']['name']}"
                ) as span:
                    for key, value in tool_attributes(dialect, call, result).items():
                        span.set_attribute(key, value)
    return list(memory.get_finished_spans())


def recording_tracer(scope: str = "fidelity"):
    """A tracer of its own provider, and the in-memory exporter its finished spans go to."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    return provider.get_tracer(scope), memory


def agent_span(tracer):
    """The conversation's root span, around every model call and tool call."""
    return tracer.start_as_current_span(
        "invoke_agent support", attributes={"gen_ai.operation.name": "invoke_agent"}
    )


def llm_attributes(dialect, history, reply) -> dict:
    if dialect == "genai":
        system = [m for m in history if m["role"] == "system"]
        return {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.system_instructions": json.dumps(
                [{"type": "text", "content": m["content"]} for m in system]
            ),
            "gen_ai.input.messages": json.dumps(
                [genai_parts(m) for m in history if m["role"] != "system"]
            ),
            "gen_ai.output.messages": json.dumps([genai_parts(reply)]),
            "gen_ai.usage.input_tokens": 100,
            "gen_ai.usage.output_tokens": 20,
        }
    out = {"openinference.span.kind": "LLM", "llm.model_name": "gpt-4o-mini"}
    for prefix, messages in (("llm.input_messages", history), ("llm.output_messages", [reply])):
        for i, m in enumerate(messages):
            out[f"{prefix}.{i}.message.role"] = m["role"]
            if m.get("content") is not None:
                out[f"{prefix}.{i}.message.content"] = m["content"]
            if m.get("tool_call_id"):
                out[f"{prefix}.{i}.message.tool_call_id"] = m["tool_call_id"]
            for j, call in enumerate(m.get("tool_calls") or []):
                base = f"{prefix}.{i}.message.tool_calls.{j}.tool_call"
                out[f"{base}.id"] = call["id"]
                out[f"{base}.function.name"] = call["function"]["name"]
                out[f"{base}.function.arguments"] = call["function"]["arguments"]
    return out


def tool_attributes(dialect, call, result) -> dict:
    fn = call["function"]
    if dialect == "genai":
        return {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": fn["name"],
            "gen_ai.tool.call.id": call["id"],
            "gen_ai.tool.call.arguments": fn["arguments"],
            "gen_ai.tool.call.result": result["content"],
        }
    return {
        "openinference.span.kind": "TOOL",
        "tool.name": fn["name"],
        "input.value": fn["arguments"],
        "output.value": result["content"],
    }
