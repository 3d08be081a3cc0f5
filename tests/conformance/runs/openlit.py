"""OpenLIT's auto-instrumentation (`openlit.init`), exporting to the capture only. Runs of the
support task for tests/conformance/record.py, each with its pins."""

from __future__ import annotations

import functools
import json
import tempfile
from pathlib import Path

# OpenLIT 1.45.0 needs `opentelemetry-semantic-conventions>=0.59b0` and a dozen web
# instrumentations of the same contrib release; 0.66b1 is the latest every one of them has.
WEB = ["aiohttp-client", "asgi", "django", "falcon", "fastapi", "flask", "httpx", "pyramid"]
WEB += ["requests", "starlette", "tornado", "urllib", "urllib3", "wsgi", "dbapi"]
CONTRIB = [f"opentelemetry-instrumentation-{name}==0.66b1" for name in WEB]
OPENLIT = [
    "openlit==1.45.0",
    "openai==2.54.0",  # OpenLIT takes openai<3
    "opentelemetry-sdk==1.45.1",
    "opentelemetry-api==1.45.1",
    "opentelemetry-exporter-otlp==1.45.1",
    "opentelemetry-semantic-conventions==0.66b1",
    "opentelemetry-instrumentation==0.66b1",
    "opentelemetry-util-http==0.66b1",
    *CONTRIB,
]
LANGGRAPH = ["langgraph==1.2.24", "langchain-core==1.8.3", "langchain-openai==1.8.1"]

PINS = {
    # the plain OpenAI tool loop (chat completions, tools declared), whole and streamed, and
    # with a lookup that fails once (the model is told `Error: …`)
    **{
        name: OPENLIT
        for name in ("openlit-openai", "openlit-openai-stream", "openlit-openai-tool-error")
    },
    # LangGraph's prebuilt ReAct agent on ChatOpenAI: OpenLIT's LangGraph, LangChain and OpenAI
    # instrumentations nested in one run
    **{
        name: [*OPENLIT, *LANGGRAPH]
        for name in ("openlit-langgraph", "openlit-langgraph-tool-error")
    },
}

# A local price table, so `openlit.init` fetches none (it downloads one when given none).
PRICES = {"chat": {"gpt-4o-mini": {"promptPrice": 0.00015, "completionPrice": 0.0006}}}


def openlit_initialized(provider) -> None:
    """`openlit.init` on the recording's tracer provider (it reuses a configured global one)
    and the global logger provider record.py set, for its content events; no metrics, no GPU,
    no price download, no web framework instrumentation."""
    import openlit
    from opentelemetry import trace

    trace.set_tracer_provider(provider)
    prices = Path(tempfile.mkdtemp()) / "prices.json"
    prices.write_text(json.dumps(PRICES))
    openlit.init(
        service_name="support",
        disable_metrics=True,
        collect_gpu_stats=False,
        collect_system_metrics=False,
        pricing_json=str(prices),
        disable_batch=True,
    )


def openlit_openai_run(provider, stream: bool = False, lookup_fails: bool = False) -> None:
    """The plain OpenAI tool loop (tools declared), whole or streamed, under `openlit.init`, in
    a function decorated with `@openlit.trace` (OpenLIT's way to put a run's calls in one
    trace: its span keeps the arguments' repr and the returned text)."""
    import openlit

    from tests.conformance import support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    openlit_initialized(provider)
    tools = {
        **support_task.TOOLS,
        "lookup_order": support_task.lookup_order_failing(lookup_fails),
    }

    @openlit.trace
    def support_agent(task: str) -> str:
        assert task == support_task.TASK
        return support_task.openai_agent_run(
            server.base_url, MODEL, tools=tools, stream=stream, offer_tools=True
        )

    with FakeOpenAI() as server:
        answer = support_agent(support_task.TASK)
    assert answer == support_task.FINAL_ANSWER, answer
    provider.force_flush()


def openlit_langgraph_run(provider, lookup_fails: bool = False) -> None:
    """LangGraph's `create_react_agent` on ChatOpenAI under `openlit.init`; with `lookup_fails`
    the first lookup raises and the tool node tells the model the error."""
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import ToolNode, create_react_agent

    from tests.conformance import support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    openlit_initialized(provider)
    lookup_order = support_task.lookup_order_failing(lookup_fails)
    with FakeOpenAI() as server:
        llm = ChatOpenAI(model=MODEL, base_url=server.base_url, api_key="test")
        tools = ToolNode([tool(lookup_order), tool(support_task.refund)], handle_tool_errors=True)
        agent = create_react_agent(llm, tools, prompt=support_task.SYSTEM_PROMPT)
        state = agent.invoke({"messages": [("user", support_task.TASK)]})
    assert state["messages"][-1].content == support_task.FINAL_ANSWER, state["messages"][-1]
    provider.force_flush()


RUNS = {
    "openlit-openai": lambda provider: openlit_openai_run(provider),
    "openlit-openai-stream": functools.partial(openlit_openai_run, stream=True),
    "openlit-openai-tool-error": functools.partial(openlit_openai_run, lookup_fails=True),
    "openlit-langgraph": lambda provider: openlit_langgraph_run(provider),
    "openlit-langgraph-tool-error": functools.partial(openlit_langgraph_run, lookup_fails=True),
}
