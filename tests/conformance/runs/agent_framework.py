"""Microsoft Agent Framework, traced by its own OpenTelemetry instrumentation. Runs of the support
task for tests/conformance/record.py, each with its pins."""

from __future__ import annotations

PINS = {
    "agent-framework": [
        "agent-framework-core==1.23.0",
        "agent-framework-openai==1.17.0",
        "opentelemetry-sdk==1.45.2",
    ],
}


def agent_framework_run(provider) -> None:
    """Microsoft Agent Framework's agent on the fake OpenAI server (chat completions), with its
    own OpenTelemetry instrumentation, message content included."""
    import asyncio

    from agent_framework import Agent
    from agent_framework.observability import enable_instrumentation
    from agent_framework.openai import OpenAIChatCompletionClient
    from opentelemetry import trace

    from tests.conformance import documented_tools, support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    trace.set_tracer_provider(provider)
    enable_instrumentation(enable_sensitive_data=True)
    with FakeOpenAI() as server:
        agent = Agent(
            client=OpenAIChatCompletionClient(model=MODEL, base_url=server.base_url, api_key="t"),
            instructions=support_task.SYSTEM_PROMPT,
            tools=[documented_tools.lookup_order, documented_tools.refund],
            name="support",
        )
        asyncio.run(agent.run(support_task.TASK))


RUNS = {
    "agent-framework": agent_framework_run,
}
