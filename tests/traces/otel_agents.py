"""Agents that emit real OpenTelemetry spans, in the attribute styles found in the wild.

Used by the OTLP tests and bench/ingest.py: a travel agent on the current GenAI conventions
(11 spans), a support agent on the pre-1.37 names with message events, and an OpenInference
coding agent.
"""

import json

from opentelemetry import trace
from opentelemetry.trace import Status, StatusCode

TRAVEL_TASK = "Book me the cheapest nonstop from Lisbon to Berlin on 14 May, economy."
TRAVEL_ANSWER = "Booked TP 542 LIS→BER on 14 May at 09:40, economy, €118. Confirmation QX7P2L."


def _messages(role: str, text: str) -> str:
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])


FARES = ("economy light", "economy", "flex")


def _flight_options(run: int, step: int, size: int) -> str:
    """About `size` characters of flight listings, different for each run and step."""
    options, n = [], 0
    while sum(map(len, options)) < size:
        n += 1
        seed = (run * 7919 + step * 104729 + n * 31) % 100_000
        options.append(
            f"Flight option {n}: TP {seed % 900 + 100} LIS {seed % 24:02d}:{seed % 60:02d} → BER "
            f"{(seed // 7) % 24:02d}:{(seed // 3) % 60:02d}, {FARES[seed % 3]}, "
            f"€{seed % 400 + 60}, {seed % 9} seats left. "
        )
    return "".join(options)[:size]


def travel_agent_run(tracer, *, padding: int = 0, run: int = 0, history: bool = False) -> None:
    """11 spans: invoke_agent > 5 x (chat, execute_tool); one tool call fails and is retried.

    `padding` adds that many characters of realistic tool output per tool span (bench sizes).
    With `history` each chat span's input messages hold the whole conversation so far, tool
    results included, as instrumentations capturing content record it, and the padding differs
    from step to step and run to run.
    """
    filler = ("Flight option: TP 542 LIS 09:40 → BER 13:55, economy light, €118. " * 40)[:padding]
    conversation = [{"role": "user", "parts": [{"type": "text", "content": TRAVEL_TASK}]}]
    with tracer.start_as_current_span(
        "invoke_agent travel-agent",
        attributes={
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.provider.name": "anthropic",
            "gen_ai.agent.name": "travel-agent",
            "gen_ai.agent.version": "3.2.0",
            "gen_ai.conversation.id": f"conv_{run:06d}",
            "agent.task": TRAVEL_TASK,
            "agent.task_type": "flight_booking",
        },
    ) as root:
        steps = [
            (
                "search_flights",
                {"origin": "LIS", "destination": "BER", "date": "2026-05-14"},
                {
                    "flights": [
                        {"id": "TP542", "price": 118},
                        {"id": "FR8351", "price": 96, "stops": 1},
                    ]
                },
                None,
            ),
            ("get_fare_rules", {"flight_id": "TP542"}, {"refundable": False, "bag": "none"}, None),
            (
                "book_flight",
                {"flight_id": "TP542", "fare_class": "economy"},
                None,
                "SeatMapUnavailable: upstream 503",
            ),
            (
                "book_flight",
                {"flight_id": "TP542", "fare_class": "economy"},
                {"confirmation": "QX7P2L", "price": 118},
                None,
            ),
            (
                "send_confirmation_email",
                {"to": "traveller@example.com", "confirmation": "QX7P2L"},
                {"sent": True},
                None,
            ),
        ]
        for index, (tool, args, result, error) in enumerate(steps):
            call = {
                "role": "assistant",
                "finish_reason": "tool_call",
                "parts": [
                    {"type": "tool_call", "id": f"toolu_{index}", "name": tool, "arguments": args}
                ],
            }
            with tracer.start_as_current_span(
                "chat claude-sonnet-4-5",
                attributes={
                    "gen_ai.operation.name": "chat",
                    "gen_ai.provider.name": "anthropic",
                    "gen_ai.request.model": "claude-sonnet-4-5",
                    "gen_ai.response.model": "claude-sonnet-4-5-20250929",
                    "gen_ai.usage.input_tokens": 1400 + 300 * index,
                    "gen_ai.usage.output_tokens": 85,
                    "gen_ai.input.messages": (
                        json.dumps(conversation) if history else _messages("user", TRAVEL_TASK)
                    ),
                    "gen_ai.output.messages": json.dumps([call]),
                    "agent.step_index": index,
                },
            ):
                pass
            with tracer.start_as_current_span(
                f"execute_tool {tool}",
                attributes={
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": tool,
                    "gen_ai.tool.call.id": f"toolu_{index}",
                    "gen_ai.tool.type": "function",
                    "gen_ai.tool.call.arguments": json.dumps(args),
                    "agent.step_index": index,
                },
            ) as span:
                if error:
                    span.set_status(Status(StatusCode.ERROR, error))
                    span.set_attribute("error.type", error.split(":")[0])
                else:
                    payload = dict(result)
                    if filler:
                        payload["raw"] = _flight_options(run, index, padding) if history else filler
                    span.set_attribute("gen_ai.tool.call.result", json.dumps(payload))
            response = {"type": "tool_call_response", "id": f"toolu_{index}"}
            response["response"] = error or payload
            conversation += [call, {"role": "tool", "parts": [response]}]
        root.set_attribute("agent.final_answer", TRAVEL_ANSWER)
        root.set_attribute("agent.stop_reason", "end_turn")


def support_agent_legacy_run(tracer) -> None:
    """Pre-1.37 names: gen_ai.system, prompt/completion tokens, content events, tool.input."""
    with tracer.start_as_current_span(
        "support-bot",
        attributes={
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.system": "openai",
            "agent.name": "support-bot",
            "agent.task": "Where is my order A1042?",
        },
    ) as root:
        with tracer.start_as_current_span(
            "chat gpt-4o",
            attributes={
                "gen_ai.system": "openai",
                "gen_ai.request.model": "gpt-4o",
                "gen_ai.usage.prompt_tokens": 520,
                "gen_ai.usage.completion_tokens": 31,
            },
        ) as chat:
            chat.add_event(
                "gen_ai.content.prompt", {"gen_ai.prompt": "user: Where is my order A1042?"}
            )
            chat.add_event(
                "gen_ai.content.completion",
                {"gen_ai.completion": "Let me check the shipping status."},
            )
        with tracer.start_as_current_span(
            "get_order_status",
            attributes={
                "gen_ai.tool.name": "get_order_status",
                "gen_ai.tool.input": json.dumps({"order_id": "A1042"}),
                "gen_ai.tool.output": json.dumps({"status": "in transit"}),
            },
        ):
            pass
        with tracer.start_as_current_span("refund_lookup") as failing:
            failing.set_attribute("gen_ai.tool.name", "refund_lookup")
            failing.record_exception(TimeoutError("refund service timed out"))
            failing.set_status(Status(StatusCode.ERROR))
        root.set_attribute("agent.final_answer", "Order A1042 is in transit, arriving Friday.")
        root.set_attribute("agent.stop_reason", "max_steps_exceeded")


def coding_agent_openinference_run(tracer) -> None:
    """OpenInference: span kinds, input/output.value, flattened llm.input_messages, tool.*."""
    with tracer.start_as_current_span(
        "CodingAgent",
        attributes={
            "openinference.span.kind": "AGENT",
            "input.value": "Fix the failing test in tests/test_dates.py",
            "agent.name": "coder",
        },
    ) as root:
        with tracer.start_as_current_span(
            "ChatCompletion",
            attributes={
                "openinference.span.kind": "LLM",
                "llm.model_name": "gpt-4.1",
                "llm.token_count.prompt": 2100,
                "llm.token_count.completion": 140,
                "llm.input_messages.0.message.role": "system",
                "llm.input_messages.0.message.content": "You are a coding agent.",
                "llm.input_messages.1.message.role": "user",
                "llm.input_messages.1.message.content": "Fix the failing test",
                "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "run_tests",
            },
        ):
            pass
        with tracer.start_as_current_span(
            "run_tests",
            attributes={
                "openinference.span.kind": "TOOL",
                "tool.name": "run_tests",
                "input.value": json.dumps({"path": "tests/test_dates.py"}),
                "output.value": "1 failed: expected '2026-05-14' got '14/05/2026'",
            },
        ):
            pass
        with tracer.start_as_current_span(
            "retrieve_docs",
            attributes={
                "openinference.span.kind": "RETRIEVER",
                "input.value": "strftime iso format",
            },
        ):
            pass
        root.set_attribute("output.value", "Changed the formatter to isoformat(); tests pass.")


def tracer_for(provider):
    return trace.get_tracer("evalsite.tests.agents", tracer_provider=provider)
