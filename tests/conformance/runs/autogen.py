"""AutoGen AgentChat's AssistantAgent under OpenInference's AgentChat instrumentation, and under
AutoGen's own telemetry with an OpenAI instrumentation beside it. Runs of the support task for
tests/conformance/record.py, each with its pins."""

from __future__ import annotations

import functools

PINS = {
    # AgentChat's AssistantAgent under OpenInference's AgentChat instrumentation (streamed, as
    # its quickstart), whole and with a lookup that fails once; and under AutoGen's own
    # telemetry (agent and tool spans, no content) with OpenInference's OpenAI instrumentation
    # for the model calls
    **{
        name: [
            "autogen-agentchat==0.7.5",
            "autogen-ext[openai]==0.7.5",
            "openinference-instrumentation-autogen-agentchat==0.1.22",
            "openinference-instrumentation-openai==0.1.66",
            "opentelemetry-sdk==1.45.2",
        ]
        for name in ("autogen", "autogen-tool-error", "autogen-telemetry")
    },
    # AutoGen's own telemetry with OpenLLMetry's OpenAI instrumentation, the pair AutoGen's
    # tracing guide sets up; whole, and with a lookup that fails once
    **{
        name: [
            "autogen-agentchat==0.7.5",
            "autogen-ext[openai]==0.7.5",
            "opentelemetry-instrumentation-openai==0.62.4",
            "openai==3.63.0",
            "opentelemetry-sdk==1.45.2",
        ]
        for name in ("autogen-traceloop", "autogen-traceloop-tool-error")
    },
}


def autogen_support_agent(server_url: str, lookup_fails: bool = False, stream: bool = False):
    """AgentChat's AssistantAgent with the two tools as plain functions, allowed enough tool
    rounds to look up, refund and answer in one run, and a reflection after its tool calls.
    `lookup_fails`: the first lookup raises, as a service that is down."""
    from autogen_agentchat.agents import AssistantAgent
    from autogen_ext.models.openai import OpenAIChatCompletionClient

    from tests.conformance import support_task
    from tests.conformance.fake_openai import MODEL

    lookup_order = support_task.lookup_order_failing(lookup_fails)

    model_info = {
        "vision": False,
        "function_calling": True,
        "json_output": True,
        "family": "gpt-4o",
        "structured_output": True,
    }
    client = OpenAIChatCompletionClient(
        model=MODEL, base_url=server_url, api_key="test", model_info=model_info
    )
    return AssistantAgent(
        "support",
        model_client=client,
        tools=[lookup_order, support_task.refund],
        system_message=support_task.SYSTEM_PROMPT,
        reflect_on_tool_use=True,
        max_tool_iterations=5,
        model_client_stream=stream,
    )


def autogen_run(provider, lookup_fails: bool = False) -> None:
    """AgentChat's AssistantAgent on the fake OpenAI server, streamed, under OpenInference's
    AgentChat instrumentation (its quickstart's setup: no global tracer provider, so AutoGen's
    own spans go nowhere)."""
    import asyncio

    from openinference.instrumentation.autogen_agentchat import AutogenAgentChatInstrumentor

    from tests.conformance import support_task
    from tests.conformance.fake_openai import FakeOpenAI

    instrumentor = AutogenAgentChatInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        with FakeOpenAI() as server:
            agent = autogen_support_agent(server.base_url, lookup_fails=lookup_fails, stream=True)
            result = asyncio.run(agent.run(task=support_task.TASK))
            assert result.messages[-1].content == support_task.FINAL_ANSWER, result
    finally:
        instrumentor.uninstrument()


# The OpenAI instrumentations AutoGen's tracing guide pairs with its own telemetry.
OPENAI_INSTRUMENTATIONS = {
    "openinference": "openinference.instrumentation.openai",
    "openllmetry": "opentelemetry.instrumentation.openai",
}


def autogen_telemetry_run(provider, openai: str, lookup_fails: bool = False) -> None:
    """AgentChat's AssistantAgent with AutoGen's own telemetry (the global tracer provider:
    `create_agent`, `invoke_agent` and `execute_tool` spans, no content) and an OpenAI
    instrumentation (`openai`: OpenInference's, or OpenLLMetry's with content on, its default)
    for the model calls, under a span of the user's, as AutoGen's tracing guide sets it up.
    `lookup_fails`: the first lookup raises."""
    import asyncio
    import importlib

    from opentelemetry import trace

    from tests.conformance import support_task
    from tests.conformance.fake_openai import FakeOpenAI

    trace.set_tracer_provider(provider)
    instrumentor = importlib.import_module(OPENAI_INSTRUMENTATIONS[openai]).OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        with (
            FakeOpenAI() as server,
            trace.get_tracer("support").start_as_current_span("support run"),
        ):
            agent = autogen_support_agent(server.base_url, lookup_fails=lookup_fails)
            result = asyncio.run(agent.run(task=support_task.TASK))
            assert result.messages[-1].content == support_task.FINAL_ANSWER, result
    finally:
        instrumentor.uninstrument()


RUNS = {
    "autogen": autogen_run,
    "autogen-tool-error": functools.partial(autogen_run, lookup_fails=True),
    "autogen-telemetry": functools.partial(autogen_telemetry_run, openai="openinference"),
    "autogen-traceloop": functools.partial(autogen_telemetry_run, openai="openllmetry"),
    "autogen-traceloop-tool-error": functools.partial(
        autogen_telemetry_run, openai="openllmetry", lookup_fails=True
    ),
}
