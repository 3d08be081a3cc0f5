"""LlamaIndex's FunctionAgent under OpenInference's LlamaIndex instrumentation, and under
OpenLLMetry's LlamaIndex and OpenAI instrumentations. Runs of the support task for
tests/conformance/record.py, each with its pins."""

from __future__ import annotations

import functools

PINS = {
    "llama-index": [
        "llama-index-core==0.14.25",
        "llama-index-llms-openai==0.8.3",
        "openinference-instrumentation-llama-index==4.6.1",
        "opentelemetry-sdk==1.44.0",
    ],
    # OpenLLMetry's LlamaIndex instrumentation with its OpenAI one for the model calls; whole,
    # and with a lookup that fails once
    **{
        name: [
            "llama-index-core==0.14.25",
            "llama-index-llms-openai==0.8.3",
            "opentelemetry-instrumentation-llamaindex==0.62.4",
            "opentelemetry-instrumentation-openai==0.62.4",
            "opentelemetry-sdk==1.45.2",
        ]
        for name in ("llama-index-openllmetry", "llama-index-openllmetry-tool-error")
    },
}


def llama_index_instrumentors(instrumentation: str) -> list:
    """The instrumentors of `instrumentation`: OpenInference's LlamaIndex one, which also
    traces the model calls, or OpenLLMetry's LlamaIndex one with its OpenAI one."""
    if instrumentation == "openllmetry":
        from opentelemetry.instrumentation.llamaindex import LlamaIndexInstrumentor
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor

        return [LlamaIndexInstrumentor(), OpenAIInstrumentor()]

    return [LlamaIndexInstrumentor()]


def llama_index_run(
    provider, instrumentation: str = "openinference", lookup_fails: bool = False
) -> None:
    """LlamaIndex's FunctionAgent (a workflow) on the fake OpenAI server, streaming, with the
    instrumentors of `instrumentation`. `lookup_fails`: the first lookup raises."""
    import asyncio

    from llama_index.core.agent.workflow import FunctionAgent
    from llama_index.core.tools import FunctionTool
    from llama_index.llms.openai import OpenAI

    from tests.conformance import documented_tools, support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    instrumentors = llama_index_instrumentors(instrumentation)
    for instrumentor in instrumentors:
        instrumentor.instrument(tracer_provider=provider)
    try:
        with FakeOpenAI() as server:
            lookup_order = (
                support_task.lookup_order_failing()
                if lookup_fails
                else documented_tools.lookup_order
            )
            tools = [lookup_order, documented_tools.refund]
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
        for instrumentor in instrumentors:
            instrumentor.uninstrument()


RUNS = {
    "llama-index": llama_index_run,
    "llama-index-openllmetry": functools.partial(llama_index_run, instrumentation="openllmetry"),
    "llama-index-openllmetry-tool-error": functools.partial(
        llama_index_run, instrumentation="openllmetry", lookup_fails=True
    ),
}
