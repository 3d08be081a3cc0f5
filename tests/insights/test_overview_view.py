"""The overview page: who may see it, what it carries, and that its cost does not grow with rows."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from insights.overview import (
    CHART_BUILDERS,
    overview_snapshot_build,
    overview_snapshot_clear,
)
from tests.factories import RubricFactory, RubricVersionFactory, VerdictFactory
from tests.insights.world import insights_world

pytestmark = pytest.mark.django_db


def figures_of(response) -> dict:
    html = response.content.decode()
    start = html.index('<script id="overview-figures" type="application/json">')
    body = html[start:].split(">", 1)[1].split("</script>", 1)[0]
    return json.loads(body)


def test_anonymous_visitor_is_sent_to_login(client):
    response = client.get(reverse("overview"))
    assert response.status_code == 302
    assert "/login/" in response["Location"]


def test_user_without_a_role_is_refused(client, outsider):
    client.force_login(outsider)
    assert client.get(reverse("overview")).status_code == 403


def test_annotator_sees_every_chart_with_a_csv_link(client, annotator):
    insights_world()
    client.force_login(annotator)
    response = client.get(reverse("overview"))
    assert response.status_code == 200
    figures = figures_of(response)
    assert set(figures) == set(CHART_BUILDERS)
    for key in CHART_BUILDERS:
        assert figures[key]["data"], f"{key} has nothing to draw"
        assert reverse("insights:chart_csv", args=[key]) in response.content.decode()
    assert 'src="/static/vendor/plotly.min.js"' in response.content.decode()


def test_untrusted_names_reach_the_page_escaped(client, annotator):
    version = RubricVersionFactory(rubric=RubricFactory(name="<img src=x onerror=alert(1)>"))
    VerdictFactory(run__rubric_version=version, status="agreed", score=1.0)
    client.force_login(annotator)
    html = client.get(reverse("overview")).content.decode()
    assert "<img src=x" not in html
    assert "\\u003Cimg src=x onerror=alert(1)\\u003E" in html


def test_a_cached_snapshot_serves_the_page_in_a_few_queries(client, annotator):
    insights_world()
    client.force_login(annotator)
    client.get(reverse("overview"))  # builds and caches the snapshot
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("overview")).status_code == 200
    assert len(queries) <= 4  # session, user, roles: no chart query


def test_building_the_snapshot_costs_the_same_queries_with_more_rows():
    insights_world()
    with CaptureQueriesContext(connection) as small:
        overview_snapshot_build()
    for _ in range(5):
        VerdictFactory(status="agreed", score=1.0)
    insights_world()  # the same again: twice the traces, judgments and reviews
    overview_snapshot_clear()  # a full build: every day read again
    with CaptureQueriesContext(connection) as large:
        overview_snapshot_build()
    assert len(large) == len(small)
