"""Record the spans of frameworks too heavy for requirements-dev (70 MB and more installed), or
whose pins clash with it, into small OTLP/JSON fixtures under tests/conformance/recorded/, which
test_recorded.py ingests (with the log records a run emitted).

Installs the pinned versions into a throwaway virtualenv, runs the two-tool support agent
there against the fake OpenAI server (streaming), and writes what the framework's own
instrumentation emitted, exactly as the stock exporter would send it as JSON (its spans, and
the log records of a framework that logs its messages, under `logs`).

    python tests/conformance/record.py            # every framework below
    python tests/conformance/record.py strands    # one
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RECORDED = Path(__file__).resolve().parent / "recorded"
PINS = {
    "strands": ["strands-agents[openai]==1.62.0", "opentelemetry-sdk==1.44.0"],
    "google-adk": ["google-adk==2.13.0", "opentelemetry-sdk==1.44.0"],
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
    "agno": [
        "agno==3.1.10",
        "openinference-instrumentation-agno==1.0.15",
        "openai==3.63.0",
        "opentelemetry-sdk==1.45.2",
    ],
    "agent-framework": [
        "agent-framework-core==1.23.0",
        "agent-framework-openai==1.17.0",
        "opentelemetry-sdk==1.45.2",
    ],
    "crewai": [
        "crewai==1.15.30",
        "openinference-instrumentation-crewai==1.1.21",
        # CrewAI calls OpenAI through its SDK, which its own instrumentation does not trace
        "openinference-instrumentation-openai==0.1.66",
        "opentelemetry-sdk==1.45.2",
    ],
    # boto3 against the fake Converse server, whole, streamed, and with a tool that fails once;
    # message content comes as log records (36 MB installed, botocore's service models most)
    **{
        name: [
            "boto3==1.44.18",
            "opentelemetry-instrumentation-botocore==0.66b2",
            "opentelemetry-sdk==1.45.2",
        ]
        for name in ("bedrock", "bedrock-stream", "bedrock-tool-error")
    },
    # ~10 MB, but its instrumentation needs opentelemetry-util-genai 1.3, which the OpenAI v2
    # instrumentation of requirements-dev (2.4b0) fails to import with; and it instruments
    # google-genai <3 only, so the last 2.x
    **{
        name: [
            "google-genai==2.34.0",
            "opentelemetry-instrumentation-google-genai==1.3b0",
            "opentelemetry-sdk==1.45.2",
        ]
        for name in (
            "google-genai",
            "google-genai-stream",
            "google-genai-chat",
            "google-genai-failing",
            "google-genai-chat-failing",
        )
    },
    "llama-index": [
        "llama-index-core==0.14.25",
        "llama-index-llms-openai==0.8.3",
        "openinference-instrumentation-llama-index==4.6.1",
        "opentelemetry-sdk==1.44.0",
    ],
    # DSPy calls models through LiteLLM: OpenInference's documentation sets up both; a run
    # whole, one whose first lookup fails, and one on DSPy's LiteLLM engine (LiteLLM's spans,
    # with usage, inside DSPy's LM spans)
    **{
        name: [
            "dspy==3.4.1",
            "openinference-instrumentation-dspy==0.1.48",
            "openinference-instrumentation-litellm==0.1.51",
            "litellm==1.110.2",
            "opentelemetry-sdk==1.45.2",
        ]
        for name in ("dspy", "dspy-tool-error", "dspy-litellm")
    },
    # its agent answered whole, streamed, and with a lookup that fails once
    **{
        name: ["semantic-kernel==1.45.0", "openai==3.63.0", "opentelemetry-sdk==1.45.2"]
        for name in ("semantic-kernel", "semantic-kernel-stream", "semantic-kernel-tool-error")
    },
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
    # Haystack's Agent, traced by its own OpenTelemetryTracer (in core up to 2.x; 3.0 moved it
    # out) or by OpenInference's Haystack instrumentation; each whole and with a failing lookup
    **{
        name: [
            "haystack-ai==2.31.0",
            "openinference-instrumentation-haystack==0.1.46",
            "openai==3.63.0",
            "opentelemetry-sdk==1.45.2",
        ]
        for name in (
            "haystack",
            "haystack-tool-error",
            "haystack-openinference",
            "haystack-openinference-tool-error",
        )
    },
    # Pydantic Logfire's SDK (~3 MB with `executing`; its OpenTelemetry pins fit
    # requirements-dev), exporting to our capture only: around the plain OpenAI tool loop
    # (whole and streamed, in its default and its former attributes) and a pydantic-ai agent
    # (whole, and with a lookup that fails once)
    **{
        name: [
            "logfire==5.6.0",
            "pydantic-ai-slim[openai]==2.68.0",
            "openai==3.57.0",
            "opentelemetry-sdk==1.45.2",
        ]
        for name in (
            "logfire-openai",
            "logfire-openai-stream",
            "logfire-openai-v1",
            "logfire-openai-v1-stream",
            "logfire-pydantic-ai",
            "logfire-pydantic-ai-tool-error",
        )
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
    # Haystack 3.x's Agent (one span per model call and per tool call), traced as its docs say
    # now: the OpenTelemetryTracer of the opentelemetry-haystack integration with content
    # tracing on, whole and with a failing lookup; and under OpenInference's instrumentation
    **{
        name: [
            "haystack-ai==3.4.1",
            "opentelemetry-haystack==2.0.0",
            "openinference-instrumentation-haystack==0.1.46",
            "openai==3.63.0",
            "opentelemetry-sdk==1.45.2",
        ]
        for name in ("haystack3", "haystack3-tool-error", "haystack3-openinference")
    },
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


def google_adk_run(provider) -> None:
    """ADK reaches OpenAI models only through LiteLLM; a scripted BaseLlm plays the same
    support script in Gemini's types instead, so the run needs no network and no key."""
    import asyncio
    import os

    os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
    os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"
    from google.adk.agents import LlmAgent
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_response import LlmResponse
    from google.adk.runners import InMemoryRunner
    from google.genai import types
    from opentelemetry import trace

    from tests.conformance import support_task
    from tests.conformance.fake_openai import COMPLETION_TOKENS, PROMPT_TOKENS, next_reply

    trace.set_tracer_provider(provider)

    class ScriptedGemini(BaseLlm):
        model: str = "gemini-2.0-flash"

        async def generate_content_async(self, llm_request, stream=False):
            results = []
            for content in llm_request.contents:
                for part in content.parts or []:
                    if part.function_response:
                        value = part.function_response.response
                        value = value.get("result", value)
                        text = value if isinstance(value, str) else json.dumps(value)
                        results.append({"role": "tool", "content": text})
            reply = next_reply(results)
            if reply.get("tool_calls"):
                call = reply["tool_calls"][0]
                function_call = types.FunctionCall(
                    id=call["id"],
                    name=call["function"]["name"],
                    args=json.loads(call["function"]["arguments"]),
                )
                part = types.Part(function_call=function_call)
            else:
                part = types.Part(text=reply["content"])
            usage = types.GenerateContentResponseUsageMetadata(
                prompt_token_count=PROMPT_TOKENS,
                candidates_token_count=COMPLETION_TOKENS,
                total_token_count=PROMPT_TOKENS + COMPLETION_TOKENS,
            )
            yield LlmResponse(
                content=types.Content(role="model", parts=[part]), usage_metadata=usage
            )

    agent = LlmAgent(
        name="support",
        model=ScriptedGemini(),
        instruction=support_task.SYSTEM_PROMPT,
        tools=[support_task.lookup_order, support_task.refund],
    )
    runner = InMemoryRunner(agent=agent, app_name="support")

    async def run():
        session = await runner.session_service.create_session(app_name="support", user_id="u")
        message = types.Content(role="user", parts=[types.Part(text=support_task.TASK)])
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
            pass

    asyncio.run(run())


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


def crewai_run(provider) -> None:
    """A one-agent CrewAI crew on the fake OpenAI server, with OpenInference's CrewAI and
    OpenAI instrumentations (the pair its documentation sets up)."""
    import os

    os.environ["CREWAI_DISABLE_TELEMETRY"] = "true"  # no call home from the recording
    from crewai import LLM, Agent, Crew, Task
    from crewai.tools import tool
    from openinference.instrumentation.crewai import CrewAIInstrumentor
    from openinference.instrumentation.openai import OpenAIInstrumentor

    from tests.conformance import documented_tools, support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    instrumentors = [CrewAIInstrumentor(), OpenAIInstrumentor()]
    for instrumentor in instrumentors:
        instrumentor.instrument(tracer_provider=provider)
    try:
        with FakeOpenAI() as server:
            agent = Agent(
                role="support",
                goal=support_task.SYSTEM_PROMPT,
                backstory="A support agent.",
                tools=[tool(documented_tools.lookup_order), tool(documented_tools.refund)],
                llm=LLM(model=f"openai/{MODEL}", base_url=server.base_url, api_key="test"),
            )
            task = Task(description=support_task.TASK, expected_output="What was done.")
            task.agent = agent
            Crew(agents=[agent], tasks=[task]).kickoff()
    finally:
        for instrumentor in instrumentors:
            instrumentor.uninstrument()


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

    lookups = []

    class SupportPlugin:
        @kernel_function(description=support_task.lookup_order.__doc__)
        def lookup_order(self, order_id: str) -> str:
            lookups.append(order_id)
            if lookup_fails and len(lookups) == 1:
                raise ConnectionError("order service unavailable")
            return support_task.lookup_order(order_id)

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


def bedrock_run(provider, stream: bool = False, tools: dict | None = None) -> None:
    """The plain Converse tool loop (boto3) on the fake Bedrock server, traced by the
    OpenTelemetry botocore instrumentation with message content captured (as log events, to
    the global logger provider), under a root span that says nothing about the task."""
    import os

    os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "true"
    from opentelemetry.instrumentation.botocore import BotocoreInstrumentor

    from tests.conformance import support_task
    from tests.conformance.fake_bedrock import MODEL, FakeBedrock

    instrumentor = BotocoreInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        with (
            FakeBedrock() as server,
            provider.get_tracer("support").start_as_current_span("support run"),
        ):
            support_task.bedrock_agent_run(server.base_url, MODEL, stream=stream, tools=tools)
    finally:
        instrumentor.uninstrument()


def bedrock_tool_error_run(provider) -> None:
    """The Converse loop with a `lookup_order` that fails on its first call: the loop answers
    with the error (`status: error`) and the model looks the order up again."""
    from tests.conformance import support_task

    calls = []

    def lookup_order(order_id: str) -> str:
        calls.append(order_id)
        if len(calls) == 1:
            raise TimeoutError("order service timed out")
        return support_task.lookup_order(order_id)

    bedrock_run(provider, tools={**support_task.TOOLS, "lookup_order": lookup_order})


ORDER_SERVICE_DOWN = "order service unavailable"


def dspy_run(provider, lookup_fails: bool = False, engine: str = "auto") -> None:
    """DSPy's ReAct agent on the fake OpenAI server (its default ChatAdapter, no native tool
    calls, cache off), with OpenInference's DSPy and LiteLLM instrumentations. With
    `lookup_fails` the first lookup raises; ReAct tells the model and it looks up again.
    `engine`: DSPy's default ("auto", its native lm15 engine for an OpenAI model) or
    "litellm", which calls through LiteLLM so its spans nest inside DSPy's LM spans."""
    import dspy
    from openinference.instrumentation.dspy import DSPyInstrumentor
    from openinference.instrumentation.litellm import LiteLLMInstrumentor

    from tests.conformance import support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    instrumentors = [DSPyInstrumentor(), LiteLLMInstrumentor()]
    for instrumentor in instrumentors:
        instrumentor.instrument(tracer_provider=provider)
    try:
        with FakeOpenAI() as server:
            lm = dspy.LM(
                f"openai/{MODEL}",
                api_base=server.base_url,
                api_key="test",
                cache=False,
                engine=engine,
            )
            dspy.configure(lm=lm)
            signature = dspy.Signature("question -> answer", support_task.SYSTEM_PROMPT)
            lookups = []

            def lookup_order(order_id: str) -> str:
                """Look an order up by id; returns its amount and status as JSON."""
                lookups.append(order_id)
                if lookup_fails and len(lookups) == 1:
                    raise ConnectionError(ORDER_SERVICE_DOWN)
                return support_task.lookup_order(order_id)

            agent = dspy.ReAct(signature, tools=[lookup_order, support_task.refund])
            prediction = agent(question=support_task.TASK)
            assert prediction.answer == support_task.FINAL_ANSWER, prediction
    finally:
        for instrumentor in instrumentors:
            instrumentor.uninstrument()


def google_genai_run(provider, capture: str, way: str, failing: bool = False) -> None:
    """The Google Gen AI SDK on the fake Gemini server with the OpenTelemetry Google GenAI
    instrumentation, content captured as `capture` says (the latest conventions), the tools
    given as Python functions. `way`: "automatic" (generate_content runs the tools itself),
    "automatic-stream" (the same, streamed) or "chat" (a chat session runs them). `failing`:
    the first lookup raises."""
    import os

    os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
    os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = capture
    from google import genai
    from google.genai import types
    from opentelemetry.instrumentation.google_genai import GoogleGenAiSdkInstrumentor

    from tests.conformance import support_task
    from tests.conformance.fake_gemini import MODEL, FakeGemini

    lookups = []

    def lookup_order(order_id: str) -> str:
        """Look an order up by id; returns its amount and status as JSON."""
        lookups.append(order_id)
        if failing and len(lookups) == 1:
            raise ConnectionError("order service unavailable")
        return support_task.lookup_order(order_id)

    instrumentor = GoogleGenAiSdkInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        with (
            FakeGemini() as server,
            provider.get_tracer("support").start_as_current_span("support run"),
        ):
            client = genai.Client(
                api_key="test", http_options=types.HttpOptions(base_url=server.base_url)
            )
            config = types.GenerateContentConfig(
                tools=[lookup_order, support_task.refund],
                system_instruction=support_task.SYSTEM_PROMPT,
            )
            task = {"model": MODEL, "contents": support_task.TASK, "config": config}
            if way == "automatic":
                client.models.generate_content(**task)
            elif way == "automatic-stream":
                for _ in client.models.generate_content_stream(**task):
                    pass
            else:
                chat = client.chats.create(model=MODEL, config=config)
                chat.send_message(support_task.TASK)
    finally:
        instrumentor.uninstrument()


def autogen_support_agent(server_url: str, lookup_fails: bool = False, stream: bool = False):
    """AgentChat's AssistantAgent with the two tools as plain functions, allowed enough tool
    rounds to look up, refund and answer in one run, and a reflection after its tool calls.
    `lookup_fails`: the first lookup raises, as a service that is down."""
    from autogen_agentchat.agents import AssistantAgent
    from autogen_ext.models.openai import OpenAIChatCompletionClient

    from tests.conformance import support_task
    from tests.conformance.fake_openai import MODEL

    lookups = []

    def lookup_order(order_id: str) -> str:
        """Look an order up by id; returns its amount and status as JSON."""
        lookups.append(order_id)
        if lookup_fails and len(lookups) == 1:
            raise ConnectionError(ORDER_SERVICE_DOWN)
        return support_task.lookup_order(order_id)

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


def autogen_telemetry_run(provider) -> None:
    """AgentChat's AssistantAgent with AutoGen's own telemetry (the global tracer provider:
    `create_agent`, `invoke_agent` and `execute_tool` spans, no content) and OpenInference's
    OpenAI instrumentation for the model calls, under a span of the user's, as AutoGen's
    tracing guide sets it up."""
    import asyncio

    from openinference.instrumentation.openai import OpenAIInstrumentor
    from opentelemetry import trace

    from tests.conformance import support_task
    from tests.conformance.fake_openai import FakeOpenAI

    trace.set_tracer_provider(provider)
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        with (
            FakeOpenAI() as server,
            trace.get_tracer("support").start_as_current_span("support run"),
        ):
            agent = autogen_support_agent(server.base_url)
            result = asyncio.run(agent.run(task=support_task.TASK))
            assert result.messages[-1].content == support_task.FINAL_ANSWER, result
    finally:
        instrumentor.uninstrument()


def autogen_traceloop_run(provider, lookup_fails: bool = False) -> None:
    """AgentChat's AssistantAgent with AutoGen's own telemetry and OpenLLMetry's OpenAI
    instrumentation (content on, its default) for the model calls, under a span of the user's,
    as AutoGen's tracing guide sets it up. `lookup_fails`: the first lookup raises."""
    import asyncio

    from opentelemetry import trace
    from opentelemetry.instrumentation.openai import OpenAIInstrumentor

    from tests.conformance import support_task
    from tests.conformance.fake_openai import FakeOpenAI

    trace.set_tracer_provider(provider)
    instrumentor = OpenAIInstrumentor()
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


# The Google Gen AI SDK's ways of running the tools, each under a content capture users set.
GOOGLE_GENAI_RUNS = {
    "google-genai": ("SPAN_ONLY", "automatic", False),
    "google-genai-stream": ("SPAN_AND_EVENT", "automatic-stream", False),
    "google-genai-chat": ("EVENT_ONLY", "chat", False),
    "google-genai-failing": ("SPAN_ONLY", "automatic", True),
    "google-genai-chat-failing": ("SPAN_ONLY", "chat", True),
}


def haystack_run(provider, openinference: bool = False, lookup_fails: bool = False) -> None:
    """Haystack's Agent (OpenAIChatGenerator on the fake OpenAI server, the tools made from
    functions), traced by Haystack's own OpenTelemetryTracer with content tracing on, or by
    OpenInference's Haystack instrumentation. With `lookup_fails` the first lookup raises; the
    agent does not raise but tells the model, which looks up again. Haystack 3.x takes the
    tracer from the opentelemetry-haystack integration, where 2.x had it in core."""
    import os

    # read when haystack is imported; no auto-enabled tracer, each setup enables its own
    os.environ["HAYSTACK_AUTO_TRACE_ENABLED"] = "false"
    os.environ["HAYSTACK_TELEMETRY_ENABLED"] = "False"  # no call home from the recording
    from haystack import tracing
    from haystack.components.agents import Agent
    from haystack.components.generators.chat import OpenAIChatGenerator
    from haystack.dataclasses import ChatMessage
    from haystack.tools import create_tool_from_function
    from haystack.utils import Secret

    try:
        from haystack_integrations.tracing.opentelemetry import OpenTelemetryTracer
    except ImportError:
        from haystack.tracing.opentelemetry import OpenTelemetryTracer

    from tests.conformance import support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    lookups = []

    def lookup_order(order_id: str) -> str:
        """Look an order up by id; returns its amount and status as JSON."""
        lookups.append(order_id)
        if lookup_fails and len(lookups) == 1:
            raise ConnectionError(ORDER_SERVICE_DOWN)
        return support_task.lookup_order(order_id)

    if openinference:
        from openinference.instrumentation.haystack import HaystackInstrumentor

        instrumentor = HaystackInstrumentor()
        instrumentor.instrument(tracer_provider=provider)
    else:
        tracing.enable_tracing(OpenTelemetryTracer(provider.get_tracer("haystack")))
        tracing.tracer.is_content_tracing_enabled = True
    try:
        with FakeOpenAI() as server:
            agent = Agent(
                chat_generator=OpenAIChatGenerator(
                    api_base_url=server.base_url, api_key=Secret.from_token("test"), model=MODEL
                ),
                tools=[
                    create_tool_from_function(lookup_order),
                    create_tool_from_function(support_task.refund),
                ],
                system_prompt=support_task.SYSTEM_PROMPT,
                # a tool that raises is told to the model, which may try again
                raise_on_tool_invocation_failure=False,
            )
            result = agent.run(messages=[ChatMessage.from_user(support_task.TASK)])
            assert result["last_message"].text == support_task.FINAL_ANSWER, result
    finally:
        if openinference:
            instrumentor.uninstrument()
        else:
            tracing.disable_tracing()


def logfire_configured(provider) -> None:
    """Logfire configured to send nowhere but to `provider`'s processors (as
    `OTEL_EXPORTER_OTLP_ENDPOINT` would: completed spans, no pending ones) and to the log
    record processors of the global logger provider."""
    import logfire
    from opentelemetry._logs import get_logger_provider

    logger_provider = get_logger_provider()
    logfire.configure(
        send_to_logfire=False,
        console=False,
        metrics=False,
        service_name="support",
        additional_span_processors=provider._active_span_processor._span_processors,
        advanced=logfire.AdvancedOptions(
            log_record_processors=logger_provider._multi_log_record_processor._log_record_processors
        ),
    )


def logfire_openai_run(provider, stream: bool = False, version: int | None = None) -> None:
    """`logfire.instrument_openai()` around the plain OpenAI tool loop (chat completions, the
    tools declared, whole or streamed), under a `logfire.span`; `version` 1 is Logfire's
    former attributes (`request_data`, `response_data`), None its default (GenAI messages)."""
    import logfire

    from tests.conformance import support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    logfire_configured(provider)
    instrumenting = logfire.instrument_openai(**({"version": version} if version else {}))
    with instrumenting, FakeOpenAI() as server, logfire.span("support run"):
        support_task.openai_agent_run(server.base_url, MODEL, stream=stream, offer_tools=True)
    logfire.force_flush()


def logfire_pydantic_ai_run(provider, lookup_fails: bool = False) -> None:
    """A pydantic-ai agent with the two tools, instrumented by `logfire.instrument_pydantic_ai()`.
    With `lookup_fails` the first lookup raises ModelRetry, pydantic-ai's way to tell the model."""
    import logfire
    from pydantic_ai import Agent, ModelRetry
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from tests.conformance import support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    logfire_configured(provider)
    logfire.instrument_pydantic_ai()
    lookups = []

    def lookup_order(order_id: str) -> str:
        """Look an order up by id; returns its amount and status as JSON."""
        lookups.append(order_id)
        if lookup_fails and len(lookups) == 1:
            raise ModelRetry(ORDER_SERVICE_DOWN)
        return support_task.lookup_order(order_id)

    with FakeOpenAI() as server:
        model = OpenAIChatModel(
            MODEL, provider=OpenAIProvider(base_url=server.base_url, api_key="test")
        )
        agent = Agent(model, system_prompt=support_task.SYSTEM_PROMPT, name="support")
        agent.tool_plain(lookup_order)
        agent.tool_plain(support_task.refund)
        result = agent.run_sync(support_task.TASK)
        assert result.output == support_task.FINAL_ANSWER, result.output
    logfire.force_flush()


RUNS = {
    "dspy": dspy_run,
    "dspy-tool-error": lambda provider: dspy_run(provider, lookup_fails=True),
    "bedrock": bedrock_run,
    "bedrock-stream": lambda provider: bedrock_run(provider, stream=True),
    "bedrock-tool-error": bedrock_tool_error_run,
    "agent-framework": agent_framework_run,
    "agno": agno_run,
    "crewai": crewai_run,
    "strands": strands_run,
    "google-adk": google_adk_run,
    "beeai": beeai_run,
    "llama-index": llama_index_run,
    **{
        name: lambda provider, args=args: google_genai_run(provider, *args)
        for name, args in GOOGLE_GENAI_RUNS.items()
    },
    "semantic-kernel": semantic_kernel_run,
    "semantic-kernel-stream": functools.partial(semantic_kernel_run, stream=True),
    "semantic-kernel-tool-error": functools.partial(semantic_kernel_run, lookup_fails=True),
    "dspy-litellm": functools.partial(dspy_run, engine="litellm"),
    "autogen": autogen_run,
    "autogen-tool-error": functools.partial(autogen_run, lookup_fails=True),
    "autogen-telemetry": autogen_telemetry_run,
    "haystack": haystack_run,
    "haystack-tool-error": functools.partial(haystack_run, lookup_fails=True),
    "haystack-openinference": functools.partial(haystack_run, openinference=True),
    "haystack-openinference-tool-error": functools.partial(
        haystack_run, openinference=True, lookup_fails=True
    ),
    "logfire-openai": lambda provider: logfire_openai_run(provider),
    "logfire-openai-stream": functools.partial(logfire_openai_run, stream=True),
    "logfire-openai-v1": functools.partial(logfire_openai_run, version=1),
    "logfire-openai-v1-stream": functools.partial(logfire_openai_run, stream=True, version=1),
    "logfire-pydantic-ai": lambda provider: logfire_pydantic_ai_run(provider),
    "logfire-pydantic-ai-tool-error": functools.partial(logfire_pydantic_ai_run, lookup_fails=True),
    "autogen-traceloop": autogen_traceloop_run,
    "autogen-traceloop-tool-error": functools.partial(autogen_traceloop_run, lookup_fails=True),
    "haystack3": haystack_run,
    "haystack3-tool-error": functools.partial(haystack_run, lookup_fails=True),
    "haystack3-openinference": functools.partial(haystack_run, openinference=True),
}


def record_inside(framework: str) -> None:
    """Run one framework in this interpreter and write its fixture: its spans, and the log
    records it emitted (GenAI events, or Python logging through OpenTelemetry's handler)."""
    from google.protobuf import json_format
    from opentelemetry._logs import set_logger_provider
    from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from tests.otlp_ids import ids_to_hex

    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "support"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    logs = InMemoryLogRecordExporter()
    logger_provider = LoggerProvider(resource=Resource.create({"service.name": "support"}))
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    set_logger_provider(logger_provider)
    RUNS[framework](provider)
    request = json_format.MessageToDict(encode_spans(memory.get_finished_spans()))
    ids_to_hex(request)
    versions = {pin.split("==")[0]: pin.split("==")[1] for pin in PINS[framework]}
    fixture = {"recorded_with": versions, "request": request}
    if records := logs.get_finished_logs():
        fixture["logs"] = json_format.MessageToDict(encode_logs(records))
        ids_to_hex(fixture["logs"])
    RECORDED.mkdir(exist_ok=True)
    (RECORDED / f"{framework}.json").write_text(json.dumps(fixture, indent=1) + "\n")


# The Vercel AI SDK runs on Node: its packages, pinned, and the script that runs the agent.
AI_SDK_PINS = {
    "ai": "6.0.333",
    "@ai-sdk/openai": "3.0.141",
    "zod": "4.6.7",
    "@opentelemetry/api": "1.9.1",
    "@opentelemetry/sdk-trace-base": "2.12.1",
    "@opentelemetry/resources": "2.12.1",
    "@opentelemetry/context-async-hooks": "2.12.1",
    "@opentelemetry/otlp-transformer": "0.223.1",
}


def record_ai_sdk() -> None:
    """Install the pinned AI SDK into a throwaway folder and record its run there."""
    sys.path.insert(0, str(ROOT))
    from tests.conformance.fake_openai import FakeOpenAI

    with tempfile.TemporaryDirectory() as folder:
        package = {"type": "module", "dependencies": AI_SDK_PINS}
        (Path(folder) / "package.json").write_text(json.dumps(package))
        subprocess.run(["npm", "install", "--silent"], cwd=folder, check=True)
        script = Path(folder) / "run.mjs"
        script.write_text((Path(__file__).parent / "ai_sdk_run.mjs").read_text())
        body = Path(folder) / "body.json"
        with FakeOpenAI() as server:
            node = ["node", str(script), server.base_url, str(body), "chat"]
            subprocess.run(node, cwd=folder, check=True)
        fixture = {"recorded_with": AI_SDK_PINS, "request": json.loads(body.read_text())}
    (RECORDED / "ai-sdk.json").write_text(json.dumps(fixture, indent=1) + "\n")


# Mastra runs on Node: an Agent with its observability exporting OTLP/JSON over HTTP
# (`@mastra/otel-exporter`, "custom" provider); 221 MB installed, ~190 of it Mastra and
# OpenTelemetry. Installed without lifecycle scripts: none is needed, and the @mastra scope
# once shipped versions whose dependency ran a malicious postinstall.
MASTRA_PINS = {
    "@mastra/core": "1.71.0",
    "@mastra/observability": "1.17.9",
    "@mastra/otel-exporter": "1.4.0",
    # the OTLP/HTTP exporter the OtelExporter loads for "http/json" (its peer range)
    "@opentelemetry/exporter-trace-otlp-http": "0.218.0",
    "@ai-sdk/openai": "3.0.141",
    "zod": "4.6.7",
}
MASTRA_RUNS = {"mastra": "whole", "mastra-tool-error": "failing"}


def record_mastra(names: list[str]) -> None:
    """Install the pinned Mastra into a throwaway folder and record its runs there."""
    sys.path.insert(0, str(ROOT))
    from tests.conformance.fake_openai import FakeOpenAI

    with tempfile.TemporaryDirectory() as folder:
        package = {"type": "module", "dependencies": MASTRA_PINS}
        (Path(folder) / "package.json").write_text(json.dumps(package))
        subprocess.run(["npm", "install", "--silent", "--ignore-scripts"], cwd=folder, check=True)
        script = Path(folder) / "run.mjs"
        script.write_text((Path(__file__).parent / "mastra_run.mjs").read_text())
        for name in names:
            body = Path(folder) / "body.json"
            with FakeOpenAI() as server:
                node = ["node", str(script), server.base_url, str(body), MASTRA_RUNS[name]]
                subprocess.run(node, cwd=folder, check=True)
            fixture = {"recorded_with": MASTRA_PINS, "request": json.loads(body.read_text())}
            (RECORDED / f"{name}.json").write_text(json.dumps(fixture, indent=1) + "\n")


def record(framework: str) -> None:
    """Install the pinned framework into a throwaway venv and record there."""
    with tempfile.TemporaryDirectory() as venv:
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        python = str(Path(venv) / "bin" / "python")
        sdk = next(pin for pin in PINS[framework] if pin.startswith("opentelemetry-sdk=="))
        exporter = sdk.replace("opentelemetry-sdk", "opentelemetry-exporter-otlp-proto-common")
        subprocess.run(
            [python, "-m", "pip", "install", "--quiet", *PINS[framework], exporter], check=True
        )
        subprocess.run(
            [python, str(Path(__file__).resolve()), "--inside", framework],
            check=True,
            cwd=ROOT,
            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--inside"]:
        sys.path.insert(0, str(ROOT))
        record_inside(sys.argv[2])
    else:
        names = sys.argv[1:] or [*RUNS, "ai-sdk", *MASTRA_RUNS]
        if mastra := [name for name in names if name in MASTRA_RUNS]:
            record_mastra(mastra)
        for name in names:
            if name not in MASTRA_RUNS:
                record_ai_sdk() if name == "ai-sdk" else record(name)
            print(f"recorded {RECORDED / (name + '.json')}")
