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
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("fidelity")
    with tracer.start_as_current_span("invoke_agent support") as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        for history, reply, call, result in model_calls():
            with tracer.start_as_current_span("chat gpt-4o-mini") as span:
                for key, value in _llm_attributes(dialect, history, reply).items():
                    span.set_attribute(key, value)
            if call:
                with tracer.start_as_current_span(
                    f"execute_tool {call['function']['name']}"
                ) as span:
                    for key, value in _tool_attributes(dialect, call, result).items():
                        span.set_attribute(key, value)
    return list(memory.get_finished_spans())


def _llm_attributes(dialect, history, reply) -> dict:
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


def _tool_attributes(dialect, call, result) -> dict:
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


# Usage each model call reports, on every span that reports it.
CALL_TOKENS = (100, 20)


def nested_spans():
    """GenAI spans as a framework nests them: its own `call_llm` span around the provider's
    `generate_content` span around OpenLLMetry's `openai.chat`, all three with the call's usage
    (the last in pre-1.28 names)."""
    tracer, memory = _tracer()
    with tracer.start_as_current_span("invoke_agent support") as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        for history, reply, call, result in model_calls():
            framework = {
                **_llm_attributes("genai", history, reply),
                "gen_ai.operation.name": "call_llm",
            }
            provider = {
                "gen_ai.operation.name": "generate_content",
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "gpt-4o-mini",
                "gen_ai.usage.input_tokens": CALL_TOKENS[0],
                "gen_ai.usage.output_tokens": CALL_TOKENS[1],
            }
            openllmetry = {
                "gen_ai.system": "openai",
                "gen_ai.request.model": "gpt-4o-mini",
                "llm.request.type": "chat",
                "gen_ai.usage.prompt_tokens": CALL_TOKENS[0],
                "gen_ai.usage.completion_tokens": CALL_TOKENS[1],
            }
            with (
                tracer.start_as_current_span("call_llm", attributes=framework),
                tracer.start_as_current_span("generate_content gpt-4o-mini", attributes=provider),
                tracer.start_as_current_span("openai.chat", attributes=openllmetry),
            ):
                pass
            if call:
                _genai_tool(tracer, call, result)
    return list(memory.get_finished_spans())


def lifecycle_spans():
    """Tool calls reported as one span per lifecycle event, `tool.<name>.<event>-<N>`, each with
    `tool.parameters`; the outcome event carries the result."""
    tracer, memory = _tracer()
    with tracer.start_as_current_span("invoke_agent support") as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        for n, (history, reply, call, result) in enumerate(model_calls(), start=1):
            _genai_call(tracer, history, reply)
            if not call:
                continue
            name, arguments = call["function"]["name"], call["function"]["arguments"]
            failed = result["content"].startswith("Error:")
            events = ("start", "error" if failed else "success", "finish")
            for event in events:
                attributes = {"openinference.span.kind": "TOOL", "tool.parameters": arguments}
                if event in ("success", "error"):
                    attributes["output.value"] = result["content"]
                with tracer.start_as_current_span(
                    f"tool.{name}.{event}-{n}", attributes=attributes
                ):
                    pass
    return list(memory.get_finished_spans())


def mcp_spans():
    """Tool calls made over MCP, traced on both sides: the client's CLIENT span with the
    arguments, the server's SERVER span under it with the result."""
    from opentelemetry.trace import SpanKind

    tracer, memory = _tracer()
    with tracer.start_as_current_span("invoke_agent support") as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        for request_id, (history, reply, call, result) in enumerate(model_calls()):
            _genai_call(tracer, history, reply)
            if not call:
                continue
            name = call["function"]["name"]
            client = {
                "mcp.method.name": "tools/call",
                "jsonrpc.request.id": str(request_id),
                "mcp.session.id": "fidelity-session",
                "gen_ai.tool.call.id": call["id"],
                "gen_ai.tool.call.arguments": call["function"]["arguments"],
            }
            server = {
                "mcp.method.name": "tools/call",
                "jsonrpc.request.id": str(request_id),
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": name,
                "gen_ai.tool.call.result": result["content"],
            }
            with (
                tracer.start_as_current_span(
                    f"MCP send tools/call {name}", kind=SpanKind.CLIENT, attributes=client
                ),
                tracer.start_as_current_span(
                    f"tools/call {name}", kind=SpanKind.SERVER, attributes=server
                ),
            ):
                pass
    return list(memory.get_finished_spans())


def event_mode_spans_and_logs():
    """GenAI spans whose model calls carry no content attributes; the content comes as log
    records (the pre-1.37 message events), as instrumentations send it in event mode. Returns
    the spans and the ExportLogsServiceRequest of the records."""
    from opentelemetry._logs import LogRecord
    from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor

    logs = InMemoryLogRecordExporter()
    logger_provider = LoggerProvider()
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    logger = logger_provider.get_logger("fidelity")
    tracer, memory = _tracer()
    with tracer.start_as_current_span("invoke_agent support") as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        for history, reply, call, result in model_calls():
            attributes = {
                "gen_ai.operation.name": "chat",
                "gen_ai.system": "openai",
                "gen_ai.request.model": "gpt-4o-mini",
                "gen_ai.usage.input_tokens": CALL_TOKENS[0],
                "gen_ai.usage.output_tokens": CALL_TOKENS[1],
            }
            with tracer.start_as_current_span("chat gpt-4o-mini", attributes=attributes) as span:
                context = span.get_span_context()
                for name, body in [*map(_message_event, history), _choice_event(reply)]:
                    logger.emit(
                        LogRecord(
                            event_name=name,
                            body=body,
                            attributes={"gen_ai.system": "openai"},
                            trace_id=context.trace_id,
                            span_id=context.span_id,
                            trace_flags=context.trace_flags,
                        )
                    )
            if call:
                _genai_tool(tracer, call, result)
    return list(memory.get_finished_spans()), encode_logs(logs.get_finished_logs())


def jaeger_export(spans) -> dict:
    """Recorded spans as the Jaeger query API exports them (what its UI's JSON download holds)."""

    def tags(attributes):
        kinds = {bool: "bool", int: "int64", float: "float64"}
        return [
            {"key": key, "type": kinds.get(type(value), "string"), "value": value}
            for key, value in attributes.items()
        ]

    trace_id = f"{spans[0].context.trace_id:032x}"
    out = []
    for span in spans:
        references = []
        if span.parent is not None:
            references.append(
                {
                    "refType": "CHILD_OF",
                    "traceID": trace_id,
                    "spanID": f"{span.parent.span_id:016x}",
                }
            )
        out.append(
            {
                "traceID": trace_id,
                "spanID": f"{span.context.span_id:016x}",
                "operationName": span.name,
                "references": references,
                "startTime": span.start_time // 1000,
                "duration": (span.end_time - span.start_time) // 1000,
                "tags": tags(dict(span.attributes)),
                "logs": [],
                "processID": "p1",
            }
        )
    processes = {"p1": {"serviceName": "support-agent", "tags": []}}
    return {"data": [{"traceID": trace_id, "spans": out, "processes": processes}]}


def _tracer():
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    return provider.get_tracer("fidelity"), memory


def _genai_call(tracer, history, reply):
    attributes = _llm_attributes("genai", history, reply)
    with tracer.start_as_current_span("chat gpt-4o-mini", attributes=attributes):
        pass


def _genai_tool(tracer, call, result):
    attributes = _tool_attributes("genai", call, result)
    with tracer.start_as_current_span(
        f"execute_tool {call['function']['name']}", attributes=attributes
    ):
        pass


def _message_event(message: dict) -> tuple[str, dict]:
    """A chat message as its pre-1.37 GenAI event (name, body)."""
    role = message["role"]
    if role == "tool":
        return "gen_ai.tool.message", {"id": message["tool_call_id"], "content": message["content"]}
    body = {"content": message["content"]} if message.get("content") is not None else {}
    if message.get("tool_calls"):
        body["tool_calls"] = message["tool_calls"]
    return f"gen_ai.{role}.message", body


def _choice_event(reply: dict) -> tuple[str, dict]:
    message = {"content": reply["content"]} if reply.get("content") is not None else {}
    body = {"index": 0, "finish_reason": "tool_calls" if reply.get("tool_calls") else "stop"}
    body["message"] = message
    if reply.get("tool_calls"):
        body["tool_calls"] = reply["tool_calls"]
    return "gen_ai.choice", body
