"""The URL conf's name for a trial's MCP endpoint (golden.worlds.mcp_server). The MCP SDK costs
a process about 55 MiB and a second to import, so it loads with the first MCP request a web
worker serves, not with every worker."""

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt


@csrf_exempt
async def tool_world_mcp(request: HttpRequest, trial_id: int) -> HttpResponse:
    """The MCP endpoint of one trial's tool world; the trial's token is required."""
    from golden.worlds.mcp_server import tool_world_mcp as endpoint

    return await endpoint(request, trial_id)
