"""The tool catalogue page: everyone on the team reads it, curators change it."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from metrics.effects import tool_catalogue_ensure
from metrics.models import ToolEffect
from reviews.models import AuditEvent
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db
URL = "/judges/tools/"


@pytest.fixture
def shop():
    project = ProjectFactory(name="Shop", slug="shop")
    tool_catalogue_ensure(project, {"get_order": {"returns": "order"}}, ["refund_order"])
    return project


def test_an_annotator_reads_the_catalogue_but_cannot_change_it(annotator, shop, client_for):
    client = client_for(annotator)
    page = client.get(URL, {"project": "shop"})
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-tool="refund_order"' in html and 'data-tool="get_order"' in html
    assert "Mark as" not in html
    refused = client.post(f"{URL}?project=shop", {"tool": "refund_order", "effect": "read"})
    assert refused.status_code == 403
    assert ToolEffect.objects.get(tool="refund_order").effect == "write"


def test_a_curator_marks_a_tool_and_the_change_is_audited(curator, shop, client_for):
    client = client_for(curator)
    response = client.post(f"{URL}?project=shop", {"tool": "refund_order", "effect": "read"})
    assert response.status_code == 302 and response["Location"] == f"{URL}?project=shop"
    row = ToolEffect.objects.get(tool="refund_order")
    assert (row.effect, row.source, row.updated_by) == ("read", "curator", curator)
    assert AuditEvent.objects.filter(action="tool_effect_set", actor=curator).count() == 1
    html = client.get(response["Location"]).content.decode()
    assert "refund_order now counts as a read" in html and "cora" in html


def test_a_bad_effect_is_explained_and_nothing_changes(curator, shop, client_for):
    client = client_for(curator)
    response = client.post(
        f"{URL}?project=shop", {"tool": "refund_order", "effect": "delete"}, follow=True
    )
    assert "effect must be read or write" in response.content.decode()
    assert ToolEffect.objects.get(tool="refund_order").effect == "write"


def test_tool_names_are_escaped_and_queries_do_not_grow(curator, shop, client_for):
    client = client_for(curator)
    tool_catalogue_ensure(shop, {}, ["<script>alert(1)</script>"])
    with CaptureQueriesContext(connection) as few:
        client.get(URL, {"project": "shop"})
    tool_catalogue_ensure(shop, {}, [f"get_item_{n}" for n in range(40)])
    with CaptureQueriesContext(connection) as many:
        html = client.get(URL, {"project": "shop"}).content.decode()
    assert len(many) == len(few)
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html


def test_an_unknown_project_is_404(annotator, client_for):
    assert client_for(annotator).get(URL, {"project": "nope"}).status_code == 404
