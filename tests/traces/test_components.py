"""One component scheme, set at ingest: agent:<name>, tool:<name>, model calls to their agent."""

from metrics.attribution import ORCHESTRATOR, TOOL, WORKER, component_roles
from traces.models import Trace


def _orchestrated_trace() -> dict:
    worker = {
        "name": "flight_worker",
        "type": "agent",
        "children": [
            {"name": "plan_search", "type": "llm", "input": "find fares", "output": "call search"},
            {"name": "search_flights", "type": "tool", "input": {"from": "LIS"}, "output": []},
        ],
    }
    return {
        "trace_id": "0af7651916cd43dd8448eb211c80319c",
        "name": "travel_orchestrator",
        "type": "agent",
        "input": "Book the cheapest nonstop flight from Lisbon to Berlin on 14 March.",
        "output": "No nonstop flight is available that day.",
        "children": [
            {
                "name": "route_request",
                "type": "llm",
                "input": "who handles this?",
                "output": "flights",
            },
            worker,
        ],
    }


def test_two_level_trace_components_and_roles(api_client_for, annotator):
    response = api_client_for(annotator).post("/api/traces/", _orchestrated_trace(), format="json")
    assert response.status_code == 201, response.content
    spans = Trace.objects.get(pk=response.json()["id"]).spans.all()

    components = {span.name: span.component for span in spans}
    assert components == {
        "travel_orchestrator": "agent:travel_orchestrator",
        "route_request": "agent:travel_orchestrator",
        "flight_worker": "agent:flight_worker",
        "plan_search": "agent:flight_worker",
        "search_flights": "tool:search_flights",
    }
    assert component_roles(spans) == {
        "agent:travel_orchestrator": ORCHESTRATOR,
        "agent:flight_worker": WORKER,
        "tool:search_flights": TOOL,
    }


def test_a_lone_top_level_agent_is_the_orchestrator(api_client_for, annotator):
    tree = _orchestrated_trace()
    tree["children"] = tree["children"][:1]
    response = api_client_for(annotator).post("/api/traces/", tree, format="json")
    spans = Trace.objects.get(pk=response.json()["id"]).spans.all()
    assert component_roles(spans) == {"agent:travel_orchestrator": ORCHESTRATOR}
