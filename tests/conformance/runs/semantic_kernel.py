"""Semantic Kernel's ChatCompletionAgent with its own GenAI diagnostics (spans, and messages as log
records). Runs of the support task for tests/conformance/record.py, each with its pins."""

from __future__ import annotations

import functools

PINS = {
    # its agent answered whole, streamed, and with a lookup that fails once
    **{
        name: ["semantic-kernel==1.45.0", "openai==3.63.0", "opentelemetry-sdk==1.45.2"]
        for name in ("semantic-kernel", "semantic-kernel-stream", "semantic-kernel-tool-error")
    },
}


def semantic_kernel_run(provider, stream: bool = False, lookup_fails: bool = False) -> None:
    """Semantic Kernel's ChatCompletionAgent on the fake OpenAI server, the tools a plugin, with
    SK's own GenAI diagnostics: spans, and the messages as Python log records the OpenTelemetry
    logging handler sends as OTLP logs (SK's telemetry sample's setup). `lookup_fails`: the
    first lookup raises, as a service that is down."""
    import asyncio
    import logging
    import os

    # read when semantic_kernel is imported
    os.environ["SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS"] = "true"
    os.environ["SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS_SENSITIVE"] = "true"
    import openai
    from opentelemetry import trace
    from opentelemetry._logs import get_logger_provider
    from opentelemetry.sdk._logs import LoggingHandler
    from semantic_kernel.agents import ChatCompletionAgent
    from semantic_kernel.connectors.ai import FunctionChoiceBehavior
    from semantic_kernel.connectors.ai.open_ai import (
        OpenAIChatCompletion,
        OpenAIChatPromptExecutionSettings,
    )
    from semantic_kernel.functions import KernelArguments, kernel_function

    from tests.conformance import support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    trace.set_tracer_provider(provider)
    logger_provider = get_logger_provider()
    handler = LoggingHandler(logger_provider=logger_provider)
    handler.addFilter(logging.Filter("semantic_kernel"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)

    looked_up = support_task.lookup_order_failing(lookup_fails)

    class SupportPlugin:
        @kernel_function(description=support_task.lookup_order.__doc__)
        def lookup_order(self, order_id: str) -> str:
            return looked_up(order_id)

        @kernel_function(description=support_task.refund.__doc__)
        def refund(self, order_id: str, amount: float) -> str:
            return support_task.refund(order_id, amount)

    try:
        with FakeOpenAI() as server:
            client = openai.AsyncOpenAI(base_url=server.base_url, api_key="test")
            settings = OpenAIChatPromptExecutionSettings(
                function_choice_behavior=FunctionChoiceBehavior.Auto()
            )
            agent = ChatCompletionAgent(
                service=OpenAIChatCompletion(ai_model_id=MODEL, async_client=client),
                name="support",
                instructions=support_task.SYSTEM_PROMPT,
                plugins=[SupportPlugin()],
                arguments=KernelArguments(settings=settings),
            )

            async def run():
                if stream:
                    async for _ in agent.invoke_stream(support_task.TASK):
                        pass
                else:
                    await agent.get_response(support_task.TASK)

            asyncio.run(run())
    finally:
        root.removeHandler(handler)
        logger_provider.force_flush()


RUNS = {
    "semantic-kernel": semantic_kernel_run,
    "semantic-kernel-stream": functools.partial(semantic_kernel_run, stream=True),
    "semantic-kernel-tool-error": functools.partial(semantic_kernel_run, lookup_fails=True),
}
