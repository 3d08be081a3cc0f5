"""Curators create and rename projects; the page lists each with its trace count."""

import pytest

from tests.factories import ProjectFactory, TraceFactory
from traces.models import Project

pytestmark = pytest.mark.django_db
URL = "/traces/projects/"


def test_a_curator_creates_a_project(client, curator):
    client.force_login(curator)
    response = client.post(
        URL,
        {
            "name": "Billing agent",
            "slug": "billing",
            "tool_error_text_detection": "on",
            "tool_error_markers": "DECLINED\n\n  REFUSED ",
        },
    )
    assert response.status_code == 302
    project = Project.objects.get(slug="billing")
    assert project.name == "Billing agent"
    assert project.tool_error_markers == ["DECLINED", "REFUSED"]


def test_a_curator_renames_a_project_created_on_first_use(client, curator):
    project = ProjectFactory(slug="support-agent", name="Support agent")
    TraceFactory(project=project)
    client.force_login(curator)
    page = client.get(URL)
    assert b"support-agent" in page.content
    client.post(URL, {"project": project.pk, "name": "Support (EU)", "slug": "support-agent"})
    project.refresh_from_db()
    assert project.name == "Support (EU)"
    assert project.tool_error_text_detection is False  # an unticked box is off


def test_a_taken_slug_is_an_error_on_the_form(client, curator):
    ProjectFactory(slug="taken")
    client.force_login(curator)
    response = client.post(URL, {"name": "Other", "slug": "taken"})
    assert response.status_code == 200
    assert "slug" in response.context["form"].errors


def test_annotators_cannot_manage_projects(client, annotator):
    client.force_login(annotator)
    assert client.get(URL).status_code == 403
