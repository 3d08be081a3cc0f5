"""A tool that fails once, in each framework's own way of failing, read as a failure: the
failed call marked, its error read by the judge without a traceback, the retry and the rest
of the run read as they went, and no red flag on a run that recovered. The same failure with a
careless agent, which claims the refund it never made, is flagged."""

import pytest

from accounts.roles import ANNOTATOR
from metrics.models import RedFlag
from metrics.redflags import red_flags_detect
from metrics.steps import tool_steps_from_spans, trace_spans
from tests.conformance import documented_tools, support_task
from tests.conformance.fake_openai import MODEL, FakeOpenAI
from tests.conformance.harness import (
    capturing_provider,
    export_to_evalsite,
    instrumented,
    openai_v2_support_run,
)
from tests.conformance.test_frameworks import ORDER, REFUND
from tests.factories import UserFactory
from tests.judges.judge_reads import Expected, assert_judge_reads
from traces.serialize import trace_span_tree, tree_json

pytestmark = pytest.mark.django_db
OUTAGE = support_task.ORDER_SERVICE_DOWN
LOOKUP = ("lookup_order", {"order_id": support_task.ORDER_ID})
REFUND_CALL = (
    "refund",
    {"order_id": support_task.ORDER_ID, "amount": support_task.ORDER_AMOUNT},
)


class OrderServiceDown(Exception):
    pass


@pytest.fixture
def agent_api(api_client_for):
    return api_client_for(UserFactory(roles=[ANNOTATOR]))


def assert_failure_read(
    trace, error: str, recovered: bool, answer_tool: bool = False, tool_spans: bool = True
):
    steps = tool_steps_from_spans(trace_spans(trace))
    done = [("lookup_order", False), ("refund", False)] if recovered else []
    answered = [("final_answer", False)] if answer_tool else []
    assert [(step.tool, step.failed) for step in steps] == [
        ("lookup_order", True),
        *done,
        *answered,
    ]
    if tool_spans:  # a failed span; a failure told only in messages fails no span
        assert trace.error_count >= 1
    assert trace.final_answer == support_task.FINAL_ANSWER
    expected = Expected(
        task=support_task.TASK,
        final_answer=support_task.FINAL_ANSWER,
        calls=[LOOKUP, LOOKUP, REFUND_CALL] if recovered else [LOOKUP],
        results=[ORDER, REFUND] if recovered else [],
        errors=[error],
    )
    assert_judge_reads(trace, expected)
    assert "Traceback" not in tree_json(trace_span_tree(trace))
    flagged = {hit.kind for hit in red_flags_detect(trace)}
    if recovered:  # the agent retried and then did what was asked: nothing to flag
        assert flagged == set()
    else:  # it answered as if the failed lookup had worked and the refund been made
        assert RedFlag.Kind.CONFIDENT_AFTER_FAILURE in flagged


@pytest.mark.parametrize("recovered", [True, False], ids=["retries", "careless"])
def test_openai_agents(agent_api, recovered):
    from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool
    from openai import AsyncOpenAI
    from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

    provider, exporter = capturing_provider("support")
    with instrumented(provider, OpenAIAgentsInstrumentor()), FakeOpenAI(retry=recovered) as server:
        client = AsyncOpenAI(base_url=server.base_url, api_key="test")
        agent = Agent(
            name="support",
            instructions=support_task.SYSTEM_PROMPT,
            model=OpenAIChatCompletionsModel(model=MODEL, openai_client=client),
            tools=[
                function_tool(support_task.lookup_order_failing(error=OrderServiceDown)),
                function_tool(support_task.refund),
            ],
        )
        Runner.run_sync(agent, support_task.TASK)
    # the SDK tells the model a tool failed and keeps the error's text out of its trace
    assert_failure_read(export_to_evalsite(agent_api, exporter), "An error occurred", recovered)


@pytest.mark.parametrize("recovered", [True, False], ids=["retries", "careless"])
def test_langgraph(agent_api, recovered):
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import ToolNode, create_react_agent
    from openinference.instrumentation.langchain import LangChainInstrumentor

    provider, exporter = capturing_provider("support")
    with instrumented(provider, LangChainInstrumentor()), FakeOpenAI(retry=recovered) as server:
        tools = ToolNode(
            [
                tool(support_task.lookup_order_failing(error=OrderServiceDown)),
                tool(support_task.refund),
            ],
            handle_tool_errors=True,
        )
        llm = ChatOpenAI(model=MODEL, base_url=server.base_url, api_key="test")
        agent = create_react_agent(llm, tools, prompt=support_task.SYSTEM_PROMPT)
        agent.invoke({"messages": [("user", support_task.TASK)]})
    # the instrumentation appends the traceback to the error: the judge reads the error
    trace = export_to_evalsite(agent_api, exporter)
    assert_failure_read(trace, f"OrderServiceDown('{OUTAGE}')", recovered)


@pytest.mark.parametrize("recovered", [True, False], ids=["retries", "careless"])
def test_smolagents(agent_api, recovered):
    from openinference.instrumentation.smolagents import SmolagentsInstrumentor
    from smolagents import OpenAIServerModel, ToolCallingAgent, tool

    provider, exporter = capturing_provider("support")
    with instrumented(provider, SmolagentsInstrumentor()), FakeOpenAI(retry=recovered) as server:
        model = OpenAIServerModel(model_id=MODEL, api_base=server.base_url, api_key="test")
        tools = [
            tool(support_task.lookup_order_failing(error=OrderServiceDown)),
            tool(documented_tools.refund),
        ]
        agent = ToolCallingAgent(tools=tools, model=model, max_steps=6, verbosity_level=0)
        agent.run(support_task.TASK)
    trace = export_to_evalsite(agent_api, exporter)
    assert_failure_read(trace, OUTAGE, recovered, answer_tool=True)


@pytest.mark.parametrize("recovered", [True, False], ids=["retries", "careless"])
def test_pydantic_ai(agent_api, recovered):
    from pydantic_ai import Agent, ModelRetry
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    provider, exporter = capturing_provider("support")
    with FakeOpenAI(retry=recovered) as server:
        model = OpenAIChatModel(
            MODEL, provider=OpenAIProvider(base_url=server.base_url, api_key="test")
        )
        agent = Agent(model, system_prompt=support_task.SYSTEM_PROMPT, name="support")
        agent.instrument = InstrumentationSettings(tracer_provider=provider)
        # a pydantic-ai tool fails by asking the model to retry
        agent.tool_plain(support_task.lookup_order_failing(error=ModelRetry))
        agent.tool_plain(support_task.refund)
        agent.run_sync(support_task.TASK)
    assert_failure_read(export_to_evalsite(agent_api, exporter), OUTAGE, recovered)


@pytest.mark.parametrize("recovered", [True, False], ids=["retries", "careless"])
def test_plain_openai_loop(agent_api, monkeypatch, recovered):
    # the OpenAI SDK in a loop of the team's own, under the OpenTelemetry OpenAI instrumentation:
    # no tool is traced, the calls and the error live only in the model calls' messages
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "SPAN_ONLY")
    provider, exporter = capturing_provider("support")
    tools = {
        **support_task.TOOLS,
        "lookup_order": support_task.lookup_order_failing(error=OrderServiceDown),
    }
    openai_v2_support_run(provider, tools, retry=recovered)
    trace = export_to_evalsite(agent_api, exporter)
    assert_failure_read(trace, f"Error: {OUTAGE}", recovered, tool_spans=False)
