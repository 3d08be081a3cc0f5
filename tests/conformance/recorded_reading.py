"""Sending a recorded run (record.py) to evalsite, and walking what its reading decides and
hands back."""

import json
from pathlib import Path

from tests.conformance.harness import PROJECT
from tests.judges.judge_reads import reading_steps
from traces.models import SpanKind, Trace

RECORDED = Path(__file__).resolve().parent / "recorded"


def send_recorded(api_client, name: str, logs_first: bool = False) -> Trace:
    """POST a fixture's spans to /v1/traces and, where the run logged, its log records to
    /v1/logs (after the spans, or before them with `logs_first`), each joined to its span;
    the one trace they make."""
    recorded_post(api_client, name, logs_first)
    return Trace.objects.get(project__slug=PROJECT)


def recorded_post(api_client, name: str, logs_first: bool = False) -> None:
    """POST a fixture's spans, and its log records where the run logged, as send_recorded."""
    fixture = json.loads((RECORDED / f"{name}.json").read_text())
    sends = [("/v1/traces", fixture["request"])]
    if "logs" in fixture:
        sends.insert(0 if logs_first else 1, ("/v1/logs", fixture["logs"]))
    for path, body in sends:
        response = api_client.generic(
            "POST",
            path,
            json.dumps(body),
            content_type="application/json",
            HTTP_X_EVALSITE_PROJECT=PROJECT,
        )
        assert response.status_code == 200, response.content
        assert "partialSuccess" not in response.json(), response.content


def assert_support_tools_offered(trace):
    """The two tools the model calls were offered are the trace's available tools."""
    assert [tool["name"] for tool in trace.context["available_tools"]] == [
        "lookup_order",
        "refund",
    ]


def calls_decided(tree: dict) -> list[tuple[dict, dict]]:
    """(step, call) for each tool call a step of the reading decides, in order."""
    return [
        (step, call)
        for step in reading_steps(tree)
        for message in step.get("output") or []
        if isinstance(message, dict)
        for call in message.get("tool_calls") or []
    ]


def models_decided(tree: dict) -> list[str]:
    """The tools the model steps of a reading decide to call, in order."""
    return [call["tool"] for step, call in calls_decided(tree) if step["type"] == SpanKind.LLM]


def results_handed_back(tree: dict) -> list[tuple[str, object, bool]]:
    """(call id, result, error mark) of each tool result a step of the reading is handed."""
    return [
        (result["call_id"], result["result"], result.get("error", False))
        for step in reading_steps(tree)
        for message in step.get("new_input") or []
        if isinstance(message, dict)
        for result in message.get("tool_results") or []
    ]
