"""LlamaIndex's FunctionAgent under OpenInference's LlamaIndex instrumentation. Runs of the support
task for tests/conformance/record.py, each with its pins."""

from __future__ import annotations

PINS = {
    "llama-index": [
        "llama-index-core==0.14.25",
        "llama-index-llms-openai==0.8.3",
        "openinference-instrumentation-llama-index==4.6.1",
        "opentelemetry-sdk==1.44.0",
    ],
}


def llama_index_run(provider) -> None:
    """LlamaIndex's FunctionAgent (a workflow) on the fake OpenAI server, streaming, with
    OpenInference's LlamaIndex instrumentation."""
    import asyncio

    from llama_index.core.agent.workflow import FunctionAgent
    from llama_index.core.tools import FunctionTool
    from llama_index.llms.openai import OpenAI
    from openinference.instrumentation.llama_index import LlamaIndexInstrumentor

    from tests.conformance import documented_tools, support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    instrumentor = LlamaIndexInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        with FakeOpenAI() as server:
            tools = [documented_tools.lookup_order, documented_tools.refund]
            agent = FunctionAgent(
                tools=[FunctionTool.from_defaults(function) for function in tools],
                llm=OpenAI(model=MODEL, api_key="test", api_base=server.base_url),
                system_prompt=support_task.SYSTEM_PROMPT,
                name="support",
            )

            async def run():
                await agent.run(support_task.TASK)

            asyncio.run(run())
    finally:
        instrumentor.uninstrument()


RUNS = {
    "llama-index": llama_index_run,
}
