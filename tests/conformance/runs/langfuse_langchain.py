"""LangGraph traced by the Langfuse Python SDK's LangChain integration (`langfuse.langchain`'s
`CallbackHandler` passed in the run's `config`), the way most Langfuse users trace a LangGraph
agent. Runs of the support task for tests/conformance/record.py, each with its pins."""

from __future__ import annotations

import functools

from tests.conformance.runs.langfuse import USER_ID

LANGGRAPH = ["langgraph==1.2.24", "langchain-core==1.8.3", "langchain-openai==1.8.1"]

PINS = {
    # LangGraph's prebuilt ReAct agent on ChatOpenAI, each LangChain run an observation of the
    # Langfuse SDK exported to the capture only: invoked whole, streamed (`stream_mode=
    # "messages"`, the model streaming), and with a lookup that fails once
    name: ["langfuse==5.0.4", "openai==3.57.0", "opentelemetry-sdk==1.45.2", *LANGGRAPH]
    for name in ("langfuse-langgraph", "langfuse-langgraph-stream", "langfuse-langgraph-tool-error")
}


def langfuse_langgraph_run(provider, stream: bool = False, lookup_fails: bool = False) -> None:
    """`create_react_agent` on ChatOpenAI (the fake server), its tools in a ToolNode that hands
    an error back to the model as the tool's message, invoked (or streamed message by message)
    with `config={"callbacks": [CallbackHandler()]}`. The Langfuse client exports through its
    own span processor to the capture's exporter, as tests/conformance/runs/langfuse.py sets it
    up (its server a closed local port, never called); the run's user id goes in as the
    handler reads it, from the config's metadata."""
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI
    from langfuse import Langfuse
    from langfuse.langchain import CallbackHandler
    from langgraph.prebuilt import ToolNode, create_react_agent
    from opentelemetry.sdk.trace import TracerProvider

    from tests.conformance import support_task
    from tests.conformance.fake_openai import MODEL, FakeOpenAI

    (processor,) = provider._active_span_processor._span_processors
    langfuse = Langfuse(
        public_key="pk-lf-support",
        secret_key="sk-lf-support",
        base_url="http://127.0.0.1:9",
        tracer_provider=TracerProvider(resource=provider.resource),
        span_exporter=processor.span_exporter,
    )
    handler = CallbackHandler(public_key="pk-lf-support")
    config = {"callbacks": [handler], "metadata": {"langfuse_user_id": USER_ID}}
    lookup_order = support_task.lookup_order_failing(lookup_fails)
    inputs = {"messages": [("user", support_task.TASK)]}
    with FakeOpenAI() as server:
        llm = ChatOpenAI(model=MODEL, base_url=server.base_url, api_key="test")
        tools = ToolNode([tool(lookup_order), tool(support_task.refund)], handle_tool_errors=True)
        agent = create_react_agent(llm, tools, prompt=support_task.SYSTEM_PROMPT)
        if stream:  # the model's replies token by token, each joined by its message id
            replies: dict[str, str] = {}
            for chunk, meta in agent.stream(inputs, config=config, stream_mode="messages"):
                if meta["langgraph_node"] == "agent":
                    replies[chunk.id] = replies.get(chunk.id, "") + chunk.content
            answer = [*replies.values()][-1]
        else:
            answer = agent.invoke(inputs, config=config)["messages"][-1].content
        assert answer == support_task.FINAL_ANSWER, answer
    langfuse.flush()


RUNS = {
    "langfuse-langgraph": lambda provider: langfuse_langgraph_run(provider),
    "langfuse-langgraph-stream": functools.partial(langfuse_langgraph_run, stream=True),
    "langfuse-langgraph-tool-error": functools.partial(langfuse_langgraph_run, lookup_fails=True),
}
