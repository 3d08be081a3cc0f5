"""Each framework's own instrumentation, run for real against the fake OpenAI server, read right:
kinds, tool names, arguments, results, task, final answer, tokens and cost."""

import dataclasses
import importlib
import json
from decimal import Decimal

import pytest

from accounts.roles import ANNOTATOR
from metrics.steps import tool_steps_from_spans, trace_spans
from tests.conformance import documented_tools, support_task
from tests.conformance.fake_anthropic import MODEL as ANTHROPIC_MODEL
from tests.conformance.fake_anthropic import FakeAnthropic
from tests.conformance.fake_openai import COMPLETION_TOKENS, MODEL, PROMPT_TOKENS, FakeOpenAI
from tests.conformance.harness import (
    PROJECT,
    capturing_provider,
    export_to_evalsite,
    instrumented,
    openai_v2_support_run,
    spans_export,
    tool_calls,
)
from tests.factories import UserFactory
from tests.judges.judge_reads import Expected, assert_judge_reads, reading_steps
from traces.models import Span, SpanKind, Trace
from traces.serialize import trace_span_tree, tree_json

pytestmark = pytest.mark.django_db
EXPECTED_CALLS = [
    ("lookup_order", {"order_id": support_task.ORDER_ID}),
    ("refund", {"order_id": support_task.ORDER_ID, "amount": support_task.ORDER_AMOUNT}),
]
ORDER = json.loads(support_task.lookup_order(support_task.ORDER_ID))
REFUND = json.loads(support_task.refund(support_task.ORDER_ID, support_task.ORDER_AMOUNT))
# What every built-in judge must read in its prompt for the support run.
JUDGE_READS = Expected(
    task=support_task.TASK,
    final_answer=support_task.FINAL_ANSWER,
    calls=EXPECTED_CALLS,
    results=[ORDER, REFUND],
)


def judge_reads_after_failure(
    error: str, calls=EXPECTED_CALLS, failed_call: str | None = None
) -> Expected:
    """What every built-in judge must read of the support run whose first lookup failed with
    `error`: the failed lookup, its retry and the refund, with the error; with `failed_call`,
    that call (by its id) marked failed and no other."""
    return dataclasses.replace(
        JUDGE_READS,
        calls=[calls[0], *calls],
        errors=[error],
        failed_calls=None if failed_call is None else [failed_call],
    )


@pytest.fixture
def agent_api(api_client_for):
    return api_client_for(UserFactory(roles=[ANNOTATOR]))


def assert_support_calls(trace):
    """The support task's two calls with their arguments and results, its task and answer."""
    calls = tool_calls(trace)
    assert [(name, args) for name, args, _ in calls] == EXPECTED_CALLS
    assert [result for *_, result in calls] == [ORDER, REFUND]
    assert trace.task == support_task.TASK
    assert trace.final_answer == support_task.FINAL_ANSWER


def assert_checks_read_support_calls(trace):
    """The trajectory checks read the support task's two calls, each with its arguments and the
    result handed back, neither failed."""
    steps = tool_steps_from_spans(trace_spans(trace))
    assert [(step.tool, step.inputs, step.output, step.failed) for step in steps] == [
        (*EXPECTED_CALLS[0], ORDER, False),
        (*EXPECTED_CALLS[1], REFUND, False),
    ]


def assert_support_run(trace, *, model_calls: int = 3):
    assert_support_calls(trace)
    llm = Span.objects.filter(trace=trace, kind=SpanKind.LLM)
    assert llm.count() == model_calls
    assert trace.input_tokens == model_calls * PROMPT_TOKENS
    assert trace.output_tokens == model_calls * COMPLETION_TOKENS
    assert trace.model.startswith(MODEL)
    assert trace.cost_usd > Decimal(0)
    assert trace.error_count == 0
    assert_judge_reads(trace, JUDGE_READS)


def assert_silent_root_run(trace):
    """Three model calls under a root that says nothing: task and answer come from the calls,
    and the tool calls, which live only in their messages, reach the judge too."""
    spans = Span.objects.filter(trace=trace)
    assert sorted(span.kind for span in spans) == [SpanKind.CUSTOM] + [SpanKind.LLM] * 3
    assert trace.task == support_task.TASK
    assert trace.final_answer == support_task.FINAL_ANSWER
    # output tokens are not compared: streamed, OpenLLMetry's Anthropic instrumentation adds
    # message_start's count to the cumulative one message_delta gives
    assert trace.input_tokens == 3 * PROMPT_TOKENS and trace.cost_usd > Decimal(0)
    assert_judge_reads(trace, JUDGE_READS)
    # the checks read the same calls, each with the result handed back under its id
    assert_checks_read_support_calls(trace)


def smolagents_support_run(provider, *more_instrumentors) -> None:
    """smolagents' ToolCallingAgent on the fake OpenAI server, traced by OpenInference's
    smolagents instrumentation and any others given."""
    from openinference.instrumentation.smolagents import SmolagentsInstrumentor
    from smolagents import OpenAIServerModel, ToolCallingAgent, tool

    with (
        instrumented(provider, SmolagentsInstrumentor(), *more_instrumentors),
        FakeOpenAI() as server,
    ):
        model = OpenAIServerModel(model_id=MODEL, api_base=server.base_url, api_key="test")
        tools = [tool(documented_tools.lookup_order), tool(documented_tools.refund)]
        agent = ToolCallingAgent(tools=tools, model=model, max_steps=5, verbosity_level=0)
        agent.run(support_task.TASK)


def test_pydantic_ai(agent_api):
    from pydantic_ai import Agent
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    provider, exporter = capturing_provider("support")
    with FakeOpenAI() as server:
        model = OpenAIChatModel(
            MODEL, provider=OpenAIProvider(base_url=server.base_url, api_key="test")
        )
        agent = Agent(model, system_prompt=support_task.SYSTEM_PROMPT, name="support")
        agent.instrument = InstrumentationSettings(tracer_provider=provider)
        agent.tool_plain(support_task.lookup_order)
        agent.tool_plain(support_task.refund)
        agent.run_sync(support_task.TASK)
    trace = export_to_evalsite(agent_api, exporter)
    assert_support_run(trace)
    root = Span.objects.get(trace=trace, parent_span_id="")
    assert root.kind == SpanKind.AGENT and trace.agent_name == "support"
    # pydantic-ai states each call's cost itself (operation.cost); that figure is used
    per_call = Decimal(
        str(Span.objects.filter(trace=trace, kind=SpanKind.LLM)[0].attributes["operation.cost"])
    )
    assert trace.cost_usd == (3 * per_call).quantize(Decimal("0.000001"))


@pytest.mark.parametrize("api", ["OpenAIResponsesModel", "OpenAIChatCompletionsModel"])
def test_openai_agents_with_openinference(agent_api, api):
    # the SDK's default model speaks the Responses API, whose messages OpenInference writes
    # with their text twice (`content` and `contents`): read once
    import agents
    from agents import Agent, Runner, function_tool
    from openai import AsyncOpenAI
    from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

    provider, exporter = capturing_provider("support")
    with instrumented(provider, OpenAIAgentsInstrumentor()), FakeOpenAI() as server:
        model = getattr(agents, api)(
            model=MODEL,
            openai_client=AsyncOpenAI(base_url=server.base_url, api_key="test"),
        )
        agent = Agent(
            name="support",
            instructions=support_task.SYSTEM_PROMPT,
            model=model,
            tools=[
                function_tool(support_task.lookup_order),
                function_tool(support_task.refund),
            ],
        )
        Runner.run_sync(agent, support_task.TASK)
    trace = export_to_evalsite(agent_api, exporter)
    # the workflow root says nothing itself: task and answer come from the model calls
    assert_support_run(trace)
    assert Span.objects.filter(trace=trace, kind=SpanKind.AGENT).exists()


def test_openai_agents_streamed_run(agent_api):
    # streamed, each generation's output is the whole Responses API object the SDK built from
    # the chunks (no flattened messages): its items are the reply and the calls
    import asyncio

    from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool
    from openai import AsyncOpenAI
    from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

    provider, exporter = capturing_provider("support")
    with instrumented(provider, OpenAIAgentsInstrumentor()), FakeOpenAI() as server:
        client = AsyncOpenAI(base_url=server.base_url, api_key="test")
        agent = Agent(
            name="support",
            instructions=support_task.SYSTEM_PROMPT,
            model=OpenAIChatCompletionsModel(model=MODEL, openai_client=client),
            tools=[function_tool(support_task.lookup_order), function_tool(support_task.refund)],
        )

        async def run():
            async for _ in Runner.run_streamed(agent, support_task.TASK).stream_events():
                pass

        asyncio.run(run())
    trace = export_to_evalsite(agent_api, exporter)
    assert_support_run(trace)
    assert '"object": "response"' not in tree_json(trace_span_tree(trace))


def test_openai_agents_handoff_reads_each_agents_steps_under_it(agent_api):
    from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool
    from openai import AsyncOpenAI
    from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

    provider, exporter = capturing_provider("support")
    with instrumented(provider, OpenAIAgentsInstrumentor()), FakeOpenAI() as server:
        client = AsyncOpenAI(base_url=server.base_url, api_key="test")
        model = OpenAIChatCompletionsModel(model=MODEL, openai_client=client)
        tools = [function_tool(support_task.lookup_order), function_tool(support_task.refund)]
        refunds = Agent(
            name="refunds", instructions=support_task.SYSTEM_PROMPT, model=model, tools=tools
        )
        triage = Agent(
            name="triage", instructions="Hand each request on.", model=model, handoffs=[refunds]
        )
        Runner.run_sync(triage, support_task.TASK)
    trace = export_to_evalsite(agent_api, exporter)
    assert trace.task == support_task.TASK
    assert trace.final_answer == support_task.FINAL_ANSWER
    assert_judge_reads(trace, JUDGE_READS)
    # the judge sees which agent decided what: the handoff under triage, the calls under refunds
    agents = {
        node["name"]: [step["name"] for step in reading_steps(node)[1:]]
        for node in reading_steps(trace_span_tree(trace))
        if node["type"] == SpanKind.AGENT and node.get("children")
    }
    assert "handoff to refunds" in agents["triage"]
    assert {"lookup_order", "refund"} <= set(agents["refunds"])
    assert "lookup_order" not in agents["triage"]


def langgraph_support_run(chat_model: str) -> None:
    """LangGraph's prebuilt ReAct agent on the fake OpenAI or Anthropic server."""
    from langchain_core.tools import tool
    from langgraph.prebuilt import create_react_agent

    fake = FakeAnthropic() if chat_model == "anthropic" else FakeOpenAI()
    with fake as server:
        if chat_model == "anthropic":
            from langchain_anthropic import ChatAnthropic

            llm = ChatAnthropic(model=ANTHROPIC_MODEL, base_url=server.base_url, api_key="t")
        else:
            from langchain_openai import ChatOpenAI

            llm = ChatOpenAI(model=MODEL, base_url=server.base_url, api_key="test")
        tools = [tool(support_task.lookup_order), tool(support_task.refund)]
        agent = create_react_agent(llm, tools, prompt=support_task.SYSTEM_PROMPT)
        agent.invoke({"messages": [("user", support_task.TASK)]})


@pytest.mark.parametrize(
    ("instrumentor", "chat_model"),
    [
        ("openinference.instrumentation.langchain.LangChainInstrumentor", "openai"),
        ("openinference.instrumentation.langchain.LangChainInstrumentor", "anthropic"),
        # OpenLLMetry's once a process: instrumented a second time, 0.62.4 traces no run
        ("opentelemetry.instrumentation.langchain.LangchainInstrumentor", "anthropic"),
    ],
)
def test_langgraph(agent_api, instrumentor, chat_model):
    module, _, name = instrumentor.rpartition(".")
    provider, exporter = capturing_provider("support")
    with instrumented(provider, getattr(importlib.import_module(module), name)()):
        langgraph_support_run(chat_model)
    spans_export(agent_api, exporter)
    # OpenLLMetry traces building the agent (`create_agent react_agent`) apart from its run
    trace = Trace.objects.get(project__slug=PROJECT, span_count__gt=1)
    # each tool's arguments and result as the tool had them, not the run's bookkeeping around
    # them (OpenLLMetry's `input_str`, tags, metadata; a serialized ToolMessage); from
    # Anthropic, each call once though the AIMessage lists it as a tool_use block and in
    # tool_calls (and OpenLLMetry writes the block out as text too)
    if chat_model == "openai":
        assert_support_run(trace)
    else:
        assert_support_calls(trace)
        assert trace.input_tokens == 3 * PROMPT_TOKENS
        assert_judge_reads(trace, JUDGE_READS)
    # the tool node's input and the routing edge's Send carry the whole graph state, and
    # OpenLLMetry wraps every chain step's in `{"inputs": ..., "tags", "metadata", "kwargs"}`:
    # the judge reads the route and each message once
    reading = tree_json(trace_span_tree(trace))
    assert "Send(node='tools')" in reading
    assert "remaining_steps" not in reading and "HumanMessage(" not in reading
    assert '"lc": 1' not in reading and "input_str" not in reading
    assert len(reading) < 6000


def test_openai_v2_instrumentation_under_a_silent_root(agent_api, monkeypatch):
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "SPAN_ONLY")
    provider, exporter = capturing_provider("support")
    openai_v2_support_run(provider)
    assert_silent_root_run(export_to_evalsite(agent_api, exporter))


@pytest.fixture(scope="module")
def openllmetry_openai():
    """OpenLLMetry's OpenAI instrumentation, on for the module: once uninstrumented, 0.62.4
    traces no Responses API call again in the process (chat completions it does)."""
    from opentelemetry.instrumentation.openai import OpenAIInstrumentor

    provider, exporter = capturing_provider("support")
    with instrumented(provider, OpenAIInstrumentor()):
        yield provider, exporter


@pytest.mark.parametrize("loop", ["openai_agent_run", "openai_responses_agent_run"])
def test_openllmetry_openai_instrumentation_under_a_silent_root(
    agent_api, loop, openllmetry_openai
):
    # a plain tool loop on Chat Completions, and on the Responses API
    provider, exporter = openllmetry_openai
    exporter.clear()
    with (
        FakeOpenAI() as server,
        provider.get_tracer("support").start_as_current_span("support run"),
    ):
        getattr(support_task, loop)(server.base_url, MODEL)
    assert_silent_root_run(export_to_evalsite(agent_api, exporter))


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize(
    "instrumentation",
    ["openinference.instrumentation.anthropic", "opentelemetry.instrumentation.anthropic"],
)
def test_anthropic_sdk_tool_loop_under_a_silent_root(agent_api, instrumentation, stream):
    # OpenInference's and OpenLLMetry's Anthropic instrumentations around a plain tool loop
    instrumentor = importlib.import_module(instrumentation).AnthropicInstrumentor()
    provider, exporter = capturing_provider("support")
    with (
        instrumented(provider, instrumentor),
        FakeAnthropic() as server,
        provider.get_tracer("support").start_as_current_span("support run"),
    ):
        support_task.anthropic_agent_run(server.base_url, ANTHROPIC_MODEL, stream)
    trace = export_to_evalsite(agent_api, exporter)
    assert_silent_root_run(trace)
    # the tools each request declared are the trace's available tools
    offered = trace.context["available_tools"]
    assert [tool["name"] for tool in offered] == ["lookup_order", "refund"]
    # each decision once: OpenInference lists a tool_use block in the message's contents and
    # again in its tool_calls
    decided = [
        call["tool"]
        for step in trace_span_tree(trace)["children"]
        for message in step.get("output") or []
        for call in message.get("tool_calls") or []
    ]
    assert decided == ["lookup_order", "refund"]


def test_smolagents_with_openinference(agent_api):
    provider, exporter = capturing_provider("support")
    smolagents_support_run(provider)
    trace = export_to_evalsite(agent_api, exporter)
    calls = tool_calls(trace)
    # smolagents answers through its own `final_answer` tool
    assert calls[-1] == (
        "final_answer",
        {"answer": support_task.FINAL_ANSWER},
        support_task.FINAL_ANSWER,
    )
    assert [(name, args) for name, args, _ in calls[:-1]] == EXPECTED_CALLS
    assert [result for *_, result in calls[:-1]] == [ORDER, REFUND]
    assert trace.task == support_task.TASK
    assert trace.final_answer == support_task.FINAL_ANSWER
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == 3
    # the agent span repeats its calls' token sums; they count once
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    assert trace.cost_usd > Decimal(0)
    assert_judge_reads(trace, JUDGE_READS)
    first_call = Span.objects.filter(trace=trace, kind=SpanKind.LLM).order_by("position")[0]
    assert any(m.get("message", {}).get("role") == "user" for m in first_call.input)
    # each step starts from a blank ActionStep's repr, and hands the last one back to the model
    # as text: the judge reads the step's number, and each call and result once
    reading = tree_json(trace_span_tree(trace))
    assert '"ActionStep(step_number=2)"' in reading and "timing=" not in reading
    assert '"text": "Calling tools:' not in reading and '"text": "Observation:' not in reading


def test_smolagents_code_agent(agent_api):
    # a CodeAgent acts by writing Python that calls the tools: each call is still a tool step
    # with its arguments and result, and the code the model wrote is read once, in its reply
    from openinference.instrumentation.smolagents import SmolagentsInstrumentor
    from smolagents import CodeAgent, OpenAIServerModel, tool

    provider, exporter = capturing_provider("support")
    with instrumented(provider, SmolagentsInstrumentor()), FakeOpenAI() as server:
        model = OpenAIServerModel(model_id=MODEL, api_base=server.base_url, api_key="test")
        tools = [tool(documented_tools.lookup_order), tool(documented_tools.refund)]
        CodeAgent(tools=tools, model=model, max_steps=4, verbosity_level=0).run(support_task.TASK)
    trace = export_to_evalsite(agent_api, exporter)
    calls = tool_calls(trace)
    assert [(name, args) for name, args, _ in calls[:2]] == EXPECTED_CALLS
    assert [result for *_, result in calls[:2]] == [ORDER, REFUND]
    assert calls[2][0] == "final_answer"
    assert trace.task == support_task.TASK
    assert trace.final_answer == support_task.FINAL_ANSWER
    assert_judge_reads(trace, JUDGE_READS)
    reading = tree_json(trace_span_tree(trace))
    code = 'print(refund(order_id="R-7731", amount=42.5))'
    assert reading.count(json.dumps(code)[1:-1]) == 1
    # the history tells each code blob again as a `python_interpreter` call, and each run's
    # printed results as an observation: both were read already, on the reply and the tools
    assert "python_interpreter" not in reading and "Execution logs" not in reading


def test_smolagents_with_the_openai_instrumentation_nested_in_its_model_spans(agent_api):
    """OpenInference's smolagents LLM span with opentelemetry-instrumentation-openai-v2's span
    of the same call inside it, both carrying the call's usage, under an agent span that
    repeats the sums: each call counts once."""
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

    provider, exporter = capturing_provider("support")
    smolagents_support_run(provider, OpenAIInstrumentor())
    spans = {span.context.span_id: span for span in exporter.get_finished_spans()}
    nested = [
        span
        for span in spans.values()
        if span.attributes.get("gen_ai.operation.name") == "chat"
        and span.parent is not None
        and spans[span.parent.span_id].attributes.get("openinference.span.kind") == "LLM"
        and "gen_ai.usage.input_tokens" in span.attributes
        and "llm.token_count.prompt" in spans[span.parent.span_id].attributes
    ]
    assert len(nested) == 3  # the shape under test: a provider span in each framework span
    trace = export_to_evalsite(agent_api, exporter)
    assert Span.objects.filter(trace=trace, kind=SpanKind.LLM).count() == 6
    # each call's usage once, from the provider's span inside the framework's
    assert (trace.input_tokens, trace.output_tokens) == (3 * PROMPT_TOKENS, 3 * COMPLETION_TOKENS)
    inner_ids = {format(span.context.span_id, "016x") for span in nested}
    repeated = trace.attributes["evalsite.usage_repeated"]
    assert set(repeated.values()) == inner_ids
    counted = Span.objects.filter(trace=trace, span_id__in=inner_ids)
    assert trace.cost_usd == sum(span.cost_usd for span in counted) > Decimal(0)
    calls = tool_calls(trace)
    assert [(name, args) for name, args, _ in calls[:-1]] == EXPECTED_CALLS
    assert [result for *_, result in calls[:-1]] == [ORDER, REFUND]
    assert calls[-1][0] == "final_answer"
    assert trace.task == support_task.TASK
    assert trace.final_answer == support_task.FINAL_ANSWER
    assert_judge_reads(trace, JUDGE_READS)
