"""A trial's tool world as an MCP server (the official `mcp` package), inside Django.

Each HTTP request to `/api/tool-worlds/<trial>/mcp` runs one stateless MCP streamable-HTTP
exchange with JSON answers: the SDK's session manager parses the JSON-RPC message and calls
our handlers, which list the world's tools with their schemas and answer calls through
`tool_world_call`, the same path the plain-HTTP endpoint takes. Stateless, because a world
keeps its state (call counts, recorded calls) in the database, so any worker can answer any
request, under runserver, gunicorn or an ASGI server alike.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from evalsite_checks.worlds.answering import OK, world_tools
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from core.errors import ApplicationError, error_body
from golden.models import EvalTrial, ToolWorldCall
from golden.worlds.access import bearer_token, trial_world_open
from golden.worlds.serving import tool_world_call
from golden.worlds.traceparent import traceparent_trace_id

SERVER_NAME = "evalsite-tool-world"


def _call_result(status: int, text: str) -> types.CallToolResult:
    # A tool's failure goes back inside the result (is_error) so the agent's model sees it, as
    # the MCP specification asks; the text is what the plain-HTTP endpoint would answer.
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=status != OK)


def world_server(trial: EvalTrial, trace_id: str) -> Server:
    """An MCP server whose tools are the trial's world."""
    world = trial.entry.content.get("tool_world") or {}

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=tool["name"],
                    description=tool.get("description") or None,
                    input_schema=tool.get("input_schema") or {"type": "object"},
                )
                for tool in world_tools(world)
            ]
        )

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        answer = await sync_to_async(tool_world_call)(
            trial,
            params.name,
            params.arguments if params.arguments is not None else {},
            transport=ToolWorldCall.Transport.MCP,
            trace_id=trace_id,
        )
        if answer.delay_seconds:
            await anyio.sleep(answer.delay_seconds)
        return _call_result(answer.status, answer.text)

    return Server(SERVER_NAME, on_list_tools=list_tools, on_call_tool=call_tool)


def _scope(request: HttpRequest) -> dict[str, Any]:
    headers = [
        (name.lower().encode("latin-1"), value.encode("latin-1"))
        for name, value in request.headers.items()
    ]
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.path.encode(),
        "root_path": "",
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1"),
        "headers": headers,
        "server": (request.get_host().rsplit(":", 1)[0], int(request.get_port())),
        "client": (request.META.get("REMOTE_ADDR", ""), 0),
    }


async def _exchange(server: Server, request: HttpRequest, body: bytes) -> HttpResponse:
    """Run the SDK's transport on one request and turn what it sent into a Django response."""
    manager = StreamableHTTPSessionManager(server, json_response=True, stateless=True)
    sent = {"status": 500, "headers": [], "body": b""}
    answered = anyio.Event()
    delivered = False

    async def receive():
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await answered.wait()
        return {"type": "http.disconnect"}

    async def send(message):
        if message["type"] == "http.response.start":
            sent["status"] = message["status"]
            sent["headers"] = message.get("headers", [])
        elif message["type"] == "http.response.body":
            sent["body"] += message.get("body", b"")
            if not message.get("more_body"):
                answered.set()

    async with manager.run():
        await manager.handle_request(_scope(request), receive, send)
    response = HttpResponse(sent["body"], status=sent["status"])
    for name, value in sent["headers"]:
        key = name.decode("latin-1")
        if key.lower() not in ("content-length", "transfer-encoding", "connection"):
            response[key] = value.decode("latin-1")
    return response


@csrf_exempt
async def tool_world_mcp(request: HttpRequest, trial_id: int) -> HttpResponse:
    """The MCP endpoint of one trial's tool world; the trial's token is required."""
    try:
        trial = await sync_to_async(trial_world_open)(
            trial_id, bearer_token(request.headers.get("Authorization", ""))
        )
    except ApplicationError as exc:
        body = error_body(exc.code, exc.message, {exc.field: [exc.message]})
        return JsonResponse(body, status=exc.status_code)
    body = request.body
    server = world_server(trial, traceparent_trace_id(request.headers.get("traceparent", "")))
    return await _exchange(server, request, body)
