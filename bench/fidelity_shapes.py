"""The fidelity conversation (bench/fidelity_conversation.py) in the shapes that report one
call with several spans or send content apart from spans: model calls nested three deep,
lifecycle-event tool spans, MCP client and server spans, message content as OTLP logs, and a
Jaeger export. Recorded with the OpenTelemetry SDK."""

from contextlib import ExitStack

from bench.fidelity_conversation import (
    agent_span,
    llm_attributes,
    model_calls,
    recording_tracer,
    tool_attributes,
)

# Usage each model call reports, on every span that reports it.
CALL_TOKENS = (100, 20)


def nested_spans():
    """GenAI spans as a framework nests them: its own `call_llm` span around the provider's
    `generate_content` span around OpenLLMetry's `openai.chat`, all three with the call's usage
    (the last in pre-1.28 names)."""
    tracer, memory = recording_tracer()
    with agent_span(tracer):
        for history, reply, call, result in model_calls():
            framework = {
                **llm_attributes("genai", history, reply),
                "gen_ai.operation.name": "call_llm",
            }
            openllmetry = {
                "gen_ai.system": "openai",
                "gen_ai.request.model": "gpt-4o-mini",
                "llm.request.type": "chat",
                "gen_ai.usage.prompt_tokens": CALL_TOKENS[0],
                "gen_ai.usage.completion_tokens": CALL_TOKENS[1],
            }
            _nested(
                tracer,
                ("call_llm", framework),
                ("generate_content gpt-4o-mini", _provider_call("generate_content")),
                ("openai.chat", openllmetry),
            )
            if call:
                _genai_tool(tracer, call, result)
    return list(memory.get_finished_spans())


def provider_in_framework_spans():
    """OpenInference LLM spans (`llm.token_count.*`) each with the provider instrumentation's
    GenAI `chat` span of the same call inside (`gen_ai.usage.*`), as smolagents' instrumentation
    with opentelemetry-instrumentation-openai-v2 nests them."""
    tracer, memory = recording_tracer()
    with agent_span(tracer):
        for history, reply, call, result in model_calls():
            framework = {
                **llm_attributes("openinference", history, reply),
                "llm.token_count.prompt": CALL_TOKENS[0],
                "llm.token_count.completion": CALL_TOKENS[1],
            }
            _nested(
                tracer,
                ("OpenAIServerModel.generate", framework),
                ("chat gpt-4o-mini", _provider_call("chat")),
            )
            if call:
                _genai_tool(tracer, call, result)
    return list(memory.get_finished_spans())


def lifecycle_spans(namespace: str = ""):
    """Tool calls reported as one span per lifecycle event, `tool.<name>.<event>-<N>`, each with
    `tool.parameters`; the outcome event carries the result. With a namespace, the emitter's
    path comes before the tool's name, as BeeAI's `tool.custom.<name>.start-1`, and the model
    calls are lifecycle events too, as BeeAI's: `backend.openai.chat.start-N` with the input,
    `success-N` with the reply and the usage, `finish-N` with neither."""
    tracer, memory = recording_tracer()
    with agent_span(tracer):
        for n, (history, reply, call, result) in enumerate(model_calls(), start=1):
            if namespace:
                _lifecycle_model_call(tracer, n, history, reply)
            else:
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
                    f"tool.{namespace}{name}.{event}-{n}", attributes=attributes
                ):
                    pass
    return list(memory.get_finished_spans())


def mcp_spans():
    """Tool calls made over MCP, traced on both sides: the client's CLIENT span with the
    arguments, the server's SERVER span under it with the result."""
    from opentelemetry.trace import SpanKind

    tracer, memory = recording_tracer()
    with agent_span(tracer):
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
    tracer, memory = recording_tracer()
    with agent_span(tracer):
        for history, reply, call, result in model_calls():
            attributes = _provider_call("chat", system_key="gen_ai.system")
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


def _nested(tracer, *spans: tuple[str, dict]) -> None:
    """Spans each inside the one before, as layered instrumentations record one model call."""
    with ExitStack() as stack:
        for name, attributes in spans:
            stack.enter_context(tracer.start_as_current_span(name, attributes=attributes))


def _provider_call(operation: str, system_key: str = "gen_ai.provider.name") -> dict:
    """A provider instrumentation's GenAI span of one call: usage, no content. Before
    semconv 1.37 the provider was `gen_ai.system`."""
    return {
        "gen_ai.operation.name": operation,
        system_key: "openai",
        "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.usage.input_tokens": CALL_TOKENS[0],
        "gen_ai.usage.output_tokens": CALL_TOKENS[1],
    }


def _genai_call(tracer, history, reply):
    attributes = llm_attributes("genai", history, reply)
    with tracer.start_as_current_span("chat gpt-4o-mini", attributes=attributes):
        pass


def _lifecycle_model_call(tracer, n, history, reply):
    attributes = llm_attributes("openinference", history, reply)
    model = {"openinference.span.kind": "LLM", "llm.model_name": "gpt-4o-mini"}
    events = {
        "start": {k: v for k, v in attributes.items() if k.startswith("llm.input_messages.")},
        "success": {
            **{k: v for k, v in attributes.items() if k.startswith("llm.output_messages.")},
            "llm.token_count.prompt": CALL_TOKENS[0],
            "llm.token_count.completion": CALL_TOKENS[1],
        },
        "finish": {},
    }
    for event, extra in events.items():
        name = f"backend.openai.chat.{event}-{n}"
        with tracer.start_as_current_span(name, attributes={**model, **extra}):
            pass


def _genai_tool(tracer, call, result):
    attributes = tool_attributes("genai", call, result)
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
