"""POST /api/guardrails/check: answers, 400s naming the field, recording, roles, schema."""

import pytest
from django.urls import reverse

from guardrails.models import GuardrailDecision
from metrics.models import GuardrailPolicy
from tests.factories import ProjectFactory
from tests.guardrails.trajectories import SEARCH, search_steps, span_tree
from traces.models import Project

pytestmark = pytest.mark.django_db
URL = "/api/guardrails/check"


def _loop_request(**extra):
    return {
        "project": "travel",
        "trajectory": span_tree(*search_steps(2), task="Flights LHR to JFK"),
        "next_call": {"tool": "search_flights", "input": SEARCH, "id": "toolu_3"},
        **extra,
    }


def test_url_is_the_documented_one():
    assert reverse("api-guardrails-check") == URL


def test_block_answer_names_check_span_and_fallback(agent):
    # when an agent asks before a third identical search
    response = agent.post(URL, _loop_request(), format="json")
    # then
    assert response.status_code == 200
    body = response.json()
    assert body["decision"] == "block"
    assert [(c["check"], c["span_id"], c["blocking"]) for c in body["checks"]] == [
        ("loop", "toolu_3", True)
    ]
    assert body["fallback"] == body["checks"][0]["fallback"]
    assert body["thresholds"]["loop_repeats"] == 3 and body["steps"] == 3
    assert body["recorded"] is None
    assert response["Server-Timing"].startswith("guardrail;dur=")


def test_allow_answer(agent):
    payload = _loop_request(
        next_call={"tool": "search_flights", "input": {"origin": "LHR", "destination": "BOS"}}
    )
    body = agent.post(URL, payload, format="json").json()
    assert body["decision"] == "allow" and body["checks"] == [] and body["fallback"] == ""


def test_checking_writes_nothing_not_even_a_project(agent):
    agent.post(URL, _loop_request(project="never-seen"), format="json")
    assert not GuardrailDecision.objects.exists()
    assert not Project.objects.filter(slug="never-seen").exists()


def test_recorded_block_is_kept_under_the_trace_id(agent, annotator):
    # when the agent asks to record, naming the id it exports under
    payload = _loop_request(record=True, trace_id="4bf92f3577b34da6a3ce929d0e0e4736")
    body = agent.post(URL, payload, format="json").json()
    # then
    decision = GuardrailDecision.objects.get(pk=body["recorded"])
    assert decision.trace_external_id == "4bf92f3577b34da6a3ce929d0e0e4736"
    assert decision.decision == "block" and decision.next_tool == "search_flights"
    assert decision.checks[0]["check"] == "loop" and decision.created_by == annotator
    assert decision.project.slug == "travel"


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"project": "travel"}, "trajectory"),
        ({"trajectory": "not a tree"}, "trajectory"),
        (
            {"trajectory": {"name": "a", "children": [{"type": "tool"}]}},
            "trajectory.children[0].name",
        ),
        ({"trajectory": {"name": "a", "format": "xml"}}, "trajectory.format"),
        ({"trajectory": {"name": "a"}, "next_call": {"input": {}}}, "next_call.tool"),
        ({"trajectory": {"name": "a"}, "record": True}, "trace_id"),
        ({"trajectory": {"name": "a"}, "project": "no spaces"}, "project"),
        ({"trace_id": "feedbeef"}, "trace_id"),
        ({"trace_id": "f" * 65}, "trace_id"),
        ({"trajectory": {"name": "a"}, "next_call": {"tool": "t" * 201}}, "next_call.tool"),
        (
            {"trajectory": {"name": "a"}, "next_call": {"tool": "t", "input": [1]}},
            "next_call.input",
        ),
    ],
)
def test_bad_input_is_a_400_naming_the_field(agent, payload, field):
    ProjectFactory(slug="default", name="Default")
    response = agent.post(URL, payload, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"], response.json()
    assert not GuardrailDecision.objects.exists()


def test_project_header_is_read(agent):
    GuardrailPolicy.objects.create(project=ProjectFactory(slug="travel"), loop_repeats=5)
    payload = _loop_request()
    del payload["project"]
    body = agent.post(URL, payload, format="json", HTTP_X_EVALSITE_PROJECT="travel").json()
    assert body["decision"] == "allow" and body["thresholds"]["loop_repeats"] == 5


def test_needs_a_role(outsider, api_client_for, client):
    assert client.post(URL, _loop_request(), content_type="application/json").status_code in (
        401,
        403,
    )
    assert api_client_for(outsider).post(URL, _loop_request(), format="json").status_code == 403


def test_schema_documents_the_endpoint(agent):
    schema = agent.get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"][URL]["post"]
    assert "GuardrailCheckIn" in str(operation["requestBody"])
    assert "GuardrailCheckOut" in str(operation["responses"]["200"])
    assert "400" in operation["responses"]


def test_the_parsed_trajectory_is_freed_after_the_answer_is_sent(annotator, monkeypatch):
    # given a view whose parsed body the test can watch
    from rest_framework.test import APIRequestFactory, force_authenticate

    from guardrails import api

    parsed = []
    read = api._body_read
    monkeypatch.setattr(
        api, "_body_read", lambda request: parsed.append(read(request)) or parsed[-1]
    )
    request = APIRequestFactory().post(URL, _loop_request(), format="json")
    force_authenticate(request, user=annotator)
    # when the view answers
    response = api.GuardrailCheckApi.as_view()(request)
    # then the trajectory is still whole until the server has sent the answer, then emptied
    assert response.status_code == 200 and response.data["decision"] == "block"
    assert parsed[0]["trajectory"]["children"]
    response.close()
    assert parsed[0] == {}
