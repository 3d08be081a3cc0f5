"""What keeps a check cheap enough for an agent's loop: no query once the token and policy are
known, the policy read again when it changes, and a body only JSON may be."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core import remembered
from metrics.models import GuardrailPolicy
from tests.factories import ProjectFactory
from tests.guardrails.trajectories import SEARCH, search_steps, span_tree

pytestmark = pytest.mark.django_db
URL = "/api/guardrails/check"


@pytest.fixture
def project():
    return ProjectFactory(slug="travel")


def _ask(agent, searches: int = 2):
    payload = {
        "project": "travel",
        "trajectory": span_tree(*search_steps(searches), task="Flights LHR to JFK"),
        "next_call": {"tool": "search_flights", "input": SEARCH},
    }
    response = agent.post(URL, payload, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_a_repeated_check_makes_no_query(agent, project):
    _ask(agent)

    with CaptureQueriesContext(connection) as captured:
        body = _ask(agent)

    assert body["decision"] == "block"
    assert [q["sql"] for q in captured.captured_queries] == []


def test_a_policy_saved_on_the_site_counts_from_the_next_check(agent, project):
    assert _ask(agent)["decision"] == "block"

    GuardrailPolicy.objects.create(project=project, loop_repeats=5)

    body = _ask(agent)
    assert body["decision"] == "allow"
    assert (body["thresholds"]["loop_repeats"], body["thresholds"]["source"]) == (5, "project")


def test_a_policy_changed_by_another_process_counts_after_the_interval(agent, project, monkeypatch):
    policy = GuardrailPolicy.objects.create(project=project, loop_repeats=5)
    assert _ask(agent)["decision"] == "allow"
    # Another process saved it: no signal reaches this one.
    GuardrailPolicy.objects.filter(pk=policy.pk).update(loop_repeats=3)
    assert _ask(agent)["decision"] == "allow"

    later = remembered.time.monotonic() + 6
    monkeypatch.setattr(remembered.time, "monotonic", lambda: later)

    assert _ask(agent)["decision"] == "block"


def test_a_body_that_is_not_json_is_refused_naming_the_type(agent, project):
    response = agent.post(URL, {"project": "travel"}, format="multipart")

    assert response.status_code == 415
    assert "multipart/form-data" in response.json()["error"]["message"]


def test_a_broken_body_is_a_json_error(agent, project):
    response = agent.post(URL, b'{"trajectory": ', content_type="application/json")

    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith("JSON parse error")
