"""Strands Agents, traced by its own OpenTelemetry instrumentation. Runs of the support task for
tests/conformance/record.py, each with its pins."""

from __future__ import annotations

PINS = {
    "strands": ["strands-agents[openai]==1.62.0", "opentelemetry-sdk==1.44.0"],
}


def strands_run(provider) -> None:
    from opentelemetry import trace
    from strands import Agent, tool
    from strands.models.openai import OpenAIModel

    from tests.conformance import support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    trace.set_tracer_provider(provider)
    with FakeOpenAI() as server:
        model = OpenAIModel(
            client_args={"base_url": server.base_url, "api_key": "test"}, model_id=MODEL
        )
        agent = Agent(
            model=model,
            system_prompt=support_task.SYSTEM_PROMPT,
            tools=[tool(support_task.lookup_order), tool(support_task.refund)],
            name="support",
            callback_handler=None,
        )
        agent(support_task.TASK)


RUNS = {
    "strands": strands_run,
}
