"""A run as the two things an agent sends evalsite: an Anthropic transcript and OTLP spans.

Both are made from the same messages. The OTLP spans follow the GenAI semantic conventions
(invoke_agent > chat + execute_tool), made by the OpenTelemetry SDK and encoded by its OTLP
encoder, so the bytes are what an instrumented agent's exporter would post.
"""

from __future__ import annotations

import hashlib
import json

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode

from bench.environments.shop import tools, world
from bench.environments.shop.agent import Run

AGENT_NAME, MODEL = "shop-agent", "claude-sonnet-4-5"


def system_prompt(run: Run) -> str:
    """The shop's instructions, plus the signed-in customer when the chat knows who it is."""
    customer = run.task.context.get("customer_id")
    return world.SYSTEM_PROMPT + (f" The signed-in customer is {customer}." if customer else "")


def trace_id_for(run: Run, label: str) -> str:
    return hashlib.sha256(f"{label}:{run.task.key}:{run.trial}".encode()).hexdigest()[:32]


def eval_tags(run: Run, eval_run: str) -> dict:
    return {
        "evalsite.eval_run": eval_run,
        "evalsite.example_key": run.task.key,
        "evalsite.trial": run.trial,
    }


def transcript_payload(run: Run, eval_run: str, agent_version: str) -> dict:
    """The run as an Anthropic Messages transcript for POST /api/traces/."""
    return {
        "format": "anthropic",
        "trace_id": trace_id_for(run, eval_run),
        "model": MODEL,
        "system": system_prompt(run),
        "tools": tools.tool_definitions(),
        "messages": run.messages,
        "agent_name": AGENT_NAME,
        "agent_version": agent_version,
        "context": {**run.task.context, "channel": "chat", **eval_tags(run, eval_run)},
    }


def _text(content) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b["text"] for b in content if b.get("type") == "text" and b["text"])


def _parts(message: dict) -> dict:
    """One Anthropic message in the GenAI conventions' parts form."""
    content = message["content"]
    if isinstance(content, str):
        return {"role": message["role"], "parts": [{"type": "text", "content": content}]}
    parts = []
    for block in content:
        if block["type"] == "text" and block["text"]:
            parts.append({"type": "text", "content": block["text"]})
        elif block["type"] == "tool_use":
            parts.append(
                {
                    "type": "tool_call",
                    "id": block["id"],
                    "name": block["name"],
                    "arguments": block["input"],
                }
            )
        elif block["type"] == "tool_result":
            parts.append(
                {
                    "type": "tool_call_response",
                    "id": block["tool_use_id"],
                    "response": block["content"],
                }
            )
    role = "tool" if parts and parts[0]["type"] == "tool_call_response" else message["role"]
    return {"role": role, "parts": parts}


def _results(messages: list[dict]) -> dict[str, dict]:
    found = {}
    for message in messages:
        if isinstance(message["content"], list):
            for block in message["content"]:
                if block.get("type") == "tool_result":
                    found[block["tool_use_id"]] = block
    return found


def otlp_request(run: Run, eval_run: str, agent_version: str, project: str) -> bytes:
    """The run's spans as one OTLP/protobuf export request body for POST /v1/traces."""
    exporter = InMemorySpanExporter()
    resource = Resource.create(
        {
            "service.name": AGENT_NAME,
            "service.version": agent_version,
            "evalsite.project": project,
            **eval_tags(run, eval_run),
        }
    )
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("bench.environments.shop")
    messages, results = run.messages, _results(run.messages)
    system = json.dumps([{"type": "text", "content": system_prompt(run)}])
    offered = json.dumps(tools.tool_definitions())  # every call is given the tools, as real ones
    answer = next(_text(m["content"]) for m in reversed(messages) if m["role"] == "assistant")
    with tracer.start_as_current_span(
        f"invoke_agent {AGENT_NAME}",
        attributes={
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": AGENT_NAME,
            "gen_ai.agent.version": agent_version,
            "agent.task": messages[0]["content"],
            "gen_ai.provider.name": "anthropic",
        },
    ) as root:
        for index, message in enumerate(messages):
            if message["role"] != "assistant":
                continue
            history = json.dumps([_parts(m) for m in messages[:index]])
            with tracer.start_as_current_span(
                f"chat {MODEL}",
                attributes={
                    "gen_ai.operation.name": "chat",
                    "gen_ai.provider.name": "anthropic",
                    "gen_ai.request.model": MODEL,
                    "gen_ai.system_instructions": system,
                    "gen_ai.tool.definitions": offered,
                    "gen_ai.input.messages": history,
                    "gen_ai.output.messages": json.dumps([_parts(message)]),
                    "gen_ai.usage.input_tokens": 900 + 120 * index,
                    "gen_ai.usage.output_tokens": 60,
                },
            ):
                pass
            for block in message["content"]:
                if not (isinstance(block, dict) and block.get("type") == "tool_use"):
                    continue
                result = results[block["id"]]
                with tracer.start_as_current_span(
                    f"execute_tool {block['name']}",
                    attributes={
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": block["name"],
                        "gen_ai.tool.call.id": block["id"],
                        "gen_ai.tool.call.arguments": json.dumps(block["input"]),
                    },
                ) as span:
                    if result.get("is_error"):
                        span.set_status(Status(StatusCode.ERROR, result["content"]))
                        span.set_attribute("error.type", "ToolError")
                    elif result["content"]:
                        span.set_attribute("gen_ai.tool.call.result", result["content"])
        root.set_attribute("agent.final_answer", answer)
        root.set_attribute("agent.stop_reason", "end_turn")
    provider.shutdown()
    return encode_spans(exporter.get_finished_spans()).SerializeToString()
