"""BeeAI's ToolCallingAgent under OpenInference's BeeAI instrumentation (a span per emitter event).
Runs of the support task for tests/conformance/record.py, each with its pins."""

from __future__ import annotations

PINS = {
    # The last instrumentation that builds a span per emitter event (`tool.<...>.start-N`,
    # `.success-N`, `.finish-N`), and a framework version it instruments.
    "beeai": [
        "beeai-framework==0.1.19",
        "openinference-instrumentation-beeai==0.1.6",
        # of the framework's time: later ones change the messages LiteLLM sends
        "litellm==1.66.3",
        "openai==1.75.0",
        "pydantic==2.11.3",
        "opentelemetry-sdk==1.44.0",
    ],
}


def beeai_run(provider) -> None:
    """BeeAI's ToolCallingAgent (OpenAI through LiteLLM) with OpenInference's BeeAI
    instrumentation, which turns each emitter event into a span of its own."""
    import asyncio

    from beeai_framework.adapters.openai import OpenAIChatModel
    from beeai_framework.agents.tool_calling import ToolCallingAgent
    from beeai_framework.tools import tool
    from openinference.instrumentation.beeai import BeeAIInstrumentor

    from tests.conformance import documented_tools, support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    instrumentor = BeeAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        with FakeOpenAI() as server:
            llm = OpenAIChatModel(MODEL, api_key="test", base_url=server.base_url)
            agent = ToolCallingAgent(
                llm=llm,
                tools=[tool(documented_tools.lookup_order), tool(documented_tools.refund)],
            )

            async def run():
                await agent.run(support_task.TASK)

            asyncio.run(run())
    finally:
        instrumentor.uninstrument()


RUNS = {
    "beeai": beeai_run,
}
