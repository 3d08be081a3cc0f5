"""Agno's Agent under OpenInference's Agno instrumentation. Runs of the support task for
tests/conformance/record.py, each with its pins."""

from __future__ import annotations

PINS = {
    "agno": [
        "agno==3.1.10",
        "openinference-instrumentation-agno==1.0.15",
        "openai==3.63.0",
        "opentelemetry-sdk==1.45.2",
    ],
}


def agno_run(provider) -> None:
    """An Agno agent on the fake OpenAI server, with OpenInference's Agno instrumentation."""
    from agno.agent import Agent
    from agno.models.openai import OpenAIChat
    from openinference.instrumentation.agno import AgnoInstrumentor

    from tests.conformance import documented_tools, support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    instrumentor = AgnoInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        with FakeOpenAI() as server:
            agent = Agent(
                name="support",
                model=OpenAIChat(id=MODEL, base_url=server.base_url, api_key="test"),
                tools=[documented_tools.lookup_order, documented_tools.refund],
                instructions=support_task.SYSTEM_PROMPT,
                telemetry=False,  # no call home from the recording
            )
            agent.run(support_task.TASK)
    finally:
        instrumentor.uninstrument()


RUNS = {
    "agno": agno_run,
}
