"""An agent instrumented the way the seed article prints it: a root `agent_run` span with
`agent.task` and `agent.final_answer`, one `agent_step_N` span per model call, and `tool_call`
spans carrying `gen_ai.tool.name`, `gen_ai.tool.input` and `gen_ai.tool.output`."""

import json

from opentelemetry.trace import Status, StatusCode

from tests.judges.judge_reads import Expected

TASK = "Where is my order A-1042? It was due yesterday and I need it by Friday."
FINAL_ANSWER = (
    "Order A-1042 is delayed at the Leipzig hub; DHL now expects it on 8 December. "
    "The live tracking did not answer, so I could not confirm today's scan."
)
# (tool, arguments, result or None, error or None)
STEPS = [
    (
        "get_order_status",
        {"order_id": "A-1042"},
        {"status": "delayed", "carrier": "DHL", "tracking": "JD014600006281", "eta": "2026-12-08"},
        None,
    ),
    (
        "track_shipment",
        {"carrier": "DHL", "tracking": "JD014600006281"},
        None,
        "CarrierTimeout: DHL tracking did not answer within 10 s",
    ),
    (
        "get_order_status",
        {"order_id": "A-1042", "include_history": True},
        {"history": [{"at": "Leipzig hub", "event": "held: weather"}], "status": "delayed"},
        None,
    ),
]
CALLS = [(tool, arguments) for tool, arguments, _, _ in STEPS]
RESULTS = [result for _, _, result, _ in STEPS if result is not None]
ERRORS = [error for *_, error in STEPS if error]
# What every judge must read of this agent's trace.
EXPECTED = Expected(
    task=TASK, final_answer=FINAL_ANSWER, calls=CALLS, results=RESULTS, errors=ERRORS
)


def seed_article_run(tracer, *, stop_reason: str = "end_turn") -> None:
    with tracer.start_as_current_span("agent_run") as root:
        root.set_attribute("agent.task", TASK)
        for index, (tool, arguments, result, error) in enumerate(STEPS, start=1):
            with tracer.start_as_current_span(f"agent_step_{index}") as step:
                step.set_attribute("gen_ai.request.model", "claude-sonnet-4-5")
                step.set_attribute("gen_ai.usage.input_tokens", 900 + 150 * index)
                step.set_attribute("gen_ai.usage.output_tokens", 60)
                with tracer.start_as_current_span("tool_call") as call:
                    call.set_attribute("gen_ai.tool.name", tool)
                    call.set_attribute("gen_ai.tool.input", json.dumps(arguments))
                    if error:
                        call.set_status(Status(StatusCode.ERROR, error))
                    else:
                        call.set_attribute("gen_ai.tool.output", json.dumps(result))
        with tracer.start_as_current_span(f"agent_step_{len(STEPS) + 1}") as step:
            step.set_attribute("gen_ai.request.model", "claude-sonnet-4-5")
            step.set_attribute("gen_ai.usage.input_tokens", 1500)
            step.set_attribute("gen_ai.usage.output_tokens", 80)
        root.set_attribute("agent.final_answer", FINAL_ANSWER)
        root.set_attribute("agent.stop_reason", stop_reason)
