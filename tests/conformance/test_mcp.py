"""The MCP Python SDK's own OpenTelemetry spans, client and server in one process: each tool
call is one step, resource reads are reads, and protocol requests are no steps at all."""

import anyio
import pytest

from accounts.roles import ANNOTATOR
from metrics.steps import tool_steps_from_spans, trace_spans
from tests.conformance.harness import capturing_provider, export_to_evalsite
from tests.factories import UserFactory
from traces.models import Span, SpanKind, SpanStatus

pytestmark = pytest.mark.django_db

mcp = pytest.importorskip("mcp")


def _run_agent(monkeypatch):
    import mcp.shared._otel as mcp_otel
    from mcp import Client
    from mcp.server.mcpserver import MCPServer

    provider, exporter = capturing_provider("mcp-agent")
    # The SDK traces through its module's tracer; this test's provider records it.
    monkeypatch.setattr(mcp_otel, "_tracer", provider.get_tracer("mcp-python-sdk"))
    server = MCPServer("weather")

    @server.tool()
    def get_weather(city: str) -> dict:
        """Today's weather in a city."""
        return {"city": city, "temp": 21}

    @server.tool()
    def book_table(people: int) -> str:
        """Book a table."""
        raise ValueError("no table free")

    @server.resource("notes://today")
    def today() -> str:
        return "sunny all day"

    tracer = provider.get_tracer("agent")

    async def agent():
        with tracer.start_as_current_span("invoke_agent planner") as root:
            root.set_attribute("gen_ai.operation.name", "invoke_agent")
            root.set_attribute("agent.task", "Plan dinner in Lyon.")
            async with Client(server, mode="legacy") as client:
                await client.call_tool("get_weather", {"city": "Lyon"})
                await client.call_tool("book_table", {"people": 2})
                await client.read_resource("notes://today")

    anyio.run(agent)
    return exporter


def test_mcp_sdk_client_and_server_spans_make_one_step_a_call(api_client_for, monkeypatch):
    exporter = _run_agent(monkeypatch)
    trace = export_to_evalsite(api_client_for(UserFactory(roles=[ANNOTATOR])), exporter)
    steps = tool_steps_from_spans(trace_spans(trace))
    # two tool calls, each once, the failed one marked; no step for the protocol's requests
    assert [(step.tool, step.failed) for step in steps] == [
        ("get_weather", False),
        ("book_table", True),
    ]
    for step in steps:
        carrier = Span.objects.get(trace=trace, span_id=step.span_id)
        assert carrier.name.startswith("MCP send tools/call")  # the call the agent made
        assert carrier.tool_call_id  # the JSON-RPC request id
    reads = Span.objects.filter(trace=trace, kind=SpanKind.RETRIEVER)
    assert [span.name for span in reads] == ["MCP send resources/read"]
    merged = trace.attributes["evalsite.merged_calls"]
    assert sorted(len(members) for members in merged.values()) == [2, 2, 2]
    assert Span.objects.filter(trace=trace, status=SpanStatus.ERROR).count() >= 1
