"""The Langfuse SDK's public key picks the project: LANGFUSE_PUBLIC_KEY, the username of the
Basic auth it exports with, is a project's slug. One naming no project, or another project than
x-evalsite-project, is refused and nothing is stored; the token's role and scope decide what it
may do exactly as they do with the header."""

import base64
import json

import pytest

from accounts.authentication import SEND_ONLY_REFUSAL
from accounts.models import ApiToken, TokenScope
from accounts.roles import ANNOTATOR
from tests.conformance import support_task
from tests.conformance.recorded_reading import RECORDED
from tests.factories import ProjectFactory, UserFactory
from traces.models import Project, Span, Trace

pytestmark = pytest.mark.django_db
PATH = "/api/public/otel/v1/traces"
RUN = json.loads((RECORDED / "langfuse-tool-error.json").read_text())["request"]


def basic(public: str, secret: str) -> str:
    return "Basic " + base64.b64encode(f"{public}:{secret}".encode()).decode()


def token(roles=(ANNOTATOR,), scope=TokenScope.FULL) -> str:
    return ApiToken.generate(UserFactory(roles=list(roles)), "langfuse", scope)[1]


def export(client, public: str, secret: str, header: str | None = None):
    headers = {"HTTP_AUTHORIZATION": basic(public, secret)}
    if header is not None:
        headers["HTTP_X_EVALSITE_PROJECT"] = header
    return client.generic("POST", PATH, json.dumps(RUN), content_type="application/json", **headers)


def assert_refused(response, status: int, *named: str) -> dict:
    """The JSON error of a refusal that quotes each of `named`, with nothing stored."""
    assert response.status_code == status, response.content
    error = response.json()["error"]
    for value in named:
        assert repr(value) in error["message"], error
    assert not Span.objects.exists()
    assert not Trace.objects.exists()
    return error


def test_the_recorded_run_lands_in_the_project_its_public_key_names(client):
    ProjectFactory(slug="support-agent")
    response = export(client, "support-agent", token())
    assert response.status_code == 200, response.content
    trace = Trace.objects.get()
    assert trace.project.slug == "support-agent"
    assert (trace.task, trace.final_answer) == (support_task.TASK, support_task.FINAL_ANSWER)
    assert not Project.objects.filter(slug="default").exists()


def test_a_public_key_agreeing_with_the_header_is_taken(client):
    ProjectFactory(slug="support-agent")
    response = export(client, "support-agent", token(), header="support-agent")
    assert response.status_code == 200, response.content
    assert Trace.objects.get().project.slug == "support-agent"


def test_the_default_project_is_named_before_anything_made_it(client):
    assert export(client, "default", token()).status_code == 200
    assert Trace.objects.get().project.slug == "default"


@pytest.mark.parametrize(("header", "landed"), [(None, "default"), ("travel", "travel")])
def test_an_empty_public_key_leaves_the_project_to_the_header(client, header, landed):
    assert export(client, "", token(), header=header).status_code == 200
    assert Trace.objects.get().project.slug == landed


@pytest.mark.parametrize("public", ["pk-lf-1234", "support agent", "pk/lf"])
def test_a_public_key_naming_no_project_is_refused_naming_it(client, public):
    ProjectFactory(slug="support-agent")
    error = assert_refused(export(client, public, token()), 400, public)
    assert (error["code"], list(error["fields"])) == ("unknown_project", ["public_key"])
    assert "must be the slug of an existing project" in error["message"]
    assert set(Project.objects.values_list("slug", flat=True)) == {"support-agent"}


def test_a_public_key_and_a_header_naming_different_projects_are_refused_naming_both(client):
    ProjectFactory(slug="support-agent")
    ProjectFactory(slug="travel", name="Travel")
    response = export(client, "support-agent", token(), header="travel")
    error = assert_refused(response, 400, "support-agent", "travel")
    assert (error["code"], list(error["fields"])) == ("project_conflict", ["public_key"])
    assert "x-evalsite-project" in error["message"]


def test_a_token_that_may_not_send_is_refused_as_it_is_with_the_header(client):
    ProjectFactory(slug="support-agent")
    raw = token(roles=())
    by_key = export(client, "support-agent", raw)
    by_header = export(client, "", raw, header="support-agent")
    error = assert_refused(by_key, 403)
    assert by_header.status_code == 403
    assert error == by_header.json()["error"]
    assert error["message"] == "This endpoint needs the annotator role."


def test_a_send_only_token_sends_to_its_public_keys_project_and_reads_nothing(client):
    ProjectFactory(slug="support-agent")
    raw = token(scope=TokenScope.SEND)
    assert export(client, "support-agent", raw).status_code == 200
    assert Trace.objects.get().project.slug == "support-agent"
    read = client.get("/api/traces/", HTTP_AUTHORIZATION=basic("support-agent", raw))
    assert read.status_code == 403
    assert read.json()["error"]["message"] == SEND_ONLY_REFUSAL
