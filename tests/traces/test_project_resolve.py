"""Which project a trace belongs to has one home, traces/projects.py: the precedence is pinned
here, and every way in (JSON, JSONL bulk and upload, `manage.py ingest`, OTLP traces and logs,
the guardrail check) is sent the same inputs and must land where the resolver says."""

import ast
import itertools
import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from core.errors import ApplicationError
from guardrails.models import GuardrailDecision
from traces.models import PendingSpanLog, Project, Trace
from traces.projects import ProjectSlug, project_slug_resolve

ROOT = Path(__file__).resolve().parents[2]
NAMED, HEADER, RESOURCE = "from-body", "from-header", "from-resource"
TRACE_ID = "5b8efff798038103d269b633813fc60c"


def tree(project: str | None = None, name: str = "agent") -> dict:
    # A retried agent run: the tool is called twice, the second time without its optional
    # parameter, under a nested step.
    payload = {
        "name": "agent",
        "agent_name": name,
        "type": "agent",
        "input": "refund order 7",
        "children": [
            {
                "name": "plan",
                "children": [
                    {"name": "lookup", "type": "tool", "input": {"order": 7, "full": True}},
                    {"name": "lookup", "type": "tool", "input": {"order": 7}},
                ],
            }
        ],
    }
    if project is not None:
        payload["project"] = project
    return payload


@pytest.mark.parametrize(
    ("named", "header", "resource", "expected"),
    [
        (None, None, None, ProjectSlug("default", "project")),
        ("", "  ", "", ProjectSlug("default", "project")),
        (None, None, RESOURCE, ProjectSlug(RESOURCE, "evalsite.project")),
        (None, HEADER, RESOURCE, ProjectSlug(HEADER, "x-evalsite-project")),
        (NAMED, HEADER, RESOURCE, ProjectSlug(NAMED, "project")),
        (NAMED, None, None, ProjectSlug(NAMED, "project")),
        (" padded ", HEADER, None, ProjectSlug("padded", "project")),
        ("", HEADER, None, ProjectSlug(HEADER, "x-evalsite-project")),
    ],
)
def test_the_payload_beats_the_header_beats_the_resource_beats_default(
    named, header, resource, expected
):
    assert project_slug_resolve(named=named, header=header, resource=resource) == expected


@pytest.mark.parametrize(
    ("place", "field"),
    [("named", "project"), ("header", "x-evalsite-project"), ("resource", "evalsite.project")],
)
def test_a_bad_slug_is_refused_naming_where_it_came_from(place, field):
    with pytest.raises(ApplicationError) as refused:
        project_slug_resolve(**{place: "no such/slug"})
    assert (refused.value.field, refused.value.code) == (field, "invalid_project")


def _expected(named=None, header=None, resource=None) -> str:
    return project_slug_resolve(named=named, header=header, resource=resource).slug


def _otlp_json(resource: str | None) -> bytes:
    attributes = [{"key": "service.name", "value": {"stringValue": "shop"}}]
    if resource:
        attributes.append({"key": "evalsite.project", "value": {"stringValue": resource}})
    span = {
        "traceId": TRACE_ID,
        "spanId": "eee19b7ec3c1b174",
        "name": "invoke_agent shop",
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000001000000000",
    }
    body = {
        "resourceSpans": [
            {"resource": {"attributes": attributes}, "scopeSpans": [{"spans": [span]}]}
        ]
    }
    return json.dumps(body).encode()


def _otlp_logs_json(resource: str | None) -> bytes:
    attributes = []
    if resource:
        attributes.append({"key": "evalsite.project", "value": {"stringValue": resource}})
    record = {
        "timeUnixNano": "1700000000500000000",
        "traceId": TRACE_ID,
        "spanId": "eee19b7ec3c1b174",
        "eventName": "gen_ai.user.message",
        "body": {"kvlistValue": {"values": [{"key": "content", "value": {"stringValue": "hi"}}]}},
    }
    body = {
        "resourceLogs": [
            {"resource": {"attributes": attributes}, "scopeLogs": [{"logRecords": [record]}]}
        ]
    }
    return json.dumps(body).encode()


def _headers(header: str | None) -> dict:
    return {"HTTP_X_EVALSITE_PROJECT": header} if header else {}


def _json_api(agent, named, header):
    response = agent.post("/api/traces/", tree(named), format="json", **_headers(header))
    assert response.status_code == 201, response.json()
    return Trace.objects.get(pk=response.json()["id"]).project.slug


def _jsonl_bulk(agent, named, header):
    body = json.dumps(tree(named)).encode() + b"\n"
    response = agent.post(
        "/api/traces/bulk/", body, content_type="application/x-ndjson", **_headers(header)
    )
    assert response.status_code == 201, response.json()
    return Trace.objects.get(pk=response.json()["trace_ids"][0]).project.slug


def _otlp_traces(agent, header, resource):
    response = agent.post(
        "/v1/traces", _otlp_json(resource), content_type="application/json", **_headers(header)
    )
    assert response.status_code == 200, response.content
    return Trace.objects.get(external_id=TRACE_ID).project.slug


def _otlp_logs(agent, header, resource):
    response = agent.post(
        "/v1/logs", _otlp_logs_json(resource), content_type="application/json", **_headers(header)
    )
    assert response.status_code == 200, response.content
    return PendingSpanLog.objects.get(trace_external_id=TRACE_ID).project.slug


def _guardrail_check(agent, named, header):
    body = {"trajectory": tree(), "trace_id": TRACE_ID, "record": True}
    if named:
        body["project"] = named
    response = agent.post("/api/guardrails/check", body, format="json", **_headers(header))
    assert response.status_code == 200, response.json()
    return GuardrailDecision.objects.get().project.slug


@pytest.mark.parametrize(
    ("named", "header"), list(itertools.product((None, NAMED), (None, HEADER)))
)
@pytest.mark.parametrize("way_in", [_json_api, _jsonl_bulk, _guardrail_check])
def test_json_ways_in_land_where_the_resolver_says(
    annotator, api_client_for, way_in, named, header
):
    assert way_in(api_client_for(annotator), named, header) == _expected(named, header)


@pytest.mark.parametrize(
    ("header", "resource"), list(itertools.product((None, HEADER), (None, RESOURCE)))
)
@pytest.mark.parametrize("way_in", [_otlp_traces, _otlp_logs])
def test_otlp_ways_in_land_where_the_resolver_says(
    annotator, api_client_for, way_in, header, resource
):
    landed = way_in(api_client_for(annotator), header, resource)
    assert landed == _expected(header=header, resource=resource)


@pytest.mark.parametrize(("line", "chosen"), list(itertools.product((None, NAMED), (None, HEADER))))
def test_the_upload_page_and_the_command_let_a_line_name_its_project(
    client, annotator, tmp_path, line, chosen
):
    # The page's project field and --project are the request's project; a line may override.
    lines = json.dumps(tree(line, name="page")) + "\n"
    upload = SimpleUploadedFile("t.jsonl", lines.encode(), "application/x-ndjson")
    client.force_login(annotator)
    client.post("/traces/upload/", {"file": upload, "project": chosen or ""})
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(tree(line, name="command")) + "\n")
    call_command("ingest", str(path), "--no-progress", *(["--project", chosen] if chosen else []))
    expected = _expected(named=line, header=chosen)
    assert Trace.objects.get(agent_name="page").project.slug == expected
    assert Trace.objects.get(agent_name="command").project.slug == expected
    assert set(Project.objects.values_list("slug", flat=True)) >= {expected}


# The rule's inputs, spelled out: only the resolver's module may name them, so a second
# resolver cannot appear without this test naming it.
RULE_LITERALS = {"evalsite.project", "x-evalsite-project", "HTTP_X_EVALSITE_PROJECT"}
HOME = "traces/projects.py"
OUTSIDE_THE_APPS = ("tests/", "bench/", "clients/", "demo/", ".venv/", "deploy/")


def _app_modules():
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith(OUTSIDE_THE_APPS) or "/migrations/" in relative:
            continue
        yield relative, ast.parse(path.read_text(), relative)


def test_only_the_resolver_names_the_project_header_and_attribute():
    found = [
        (relative, node.lineno)
        for relative, module in _app_modules()
        if relative != HOME
        for node in ast.walk(module)
        if isinstance(node, ast.Constant) and node.value in RULE_LITERALS
    ]
    assert found == []


def test_only_the_resolver_creates_projects_on_ingest():
    creators = {"create", "get_or_create", "update_or_create", "bulk_create"}
    found = [
        (relative, node.lineno)
        for relative, module in _app_modules()
        if relative != HOME
        for node in ast.walk(module)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in creators
        and ast.unparse(node.func.value) == "Project.objects"
    ]
    assert found == []
