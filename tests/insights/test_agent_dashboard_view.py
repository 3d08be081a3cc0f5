"""The agent dashboard page, its CSV downloads and GET /api/insights/agent/."""

import csv
import io
import json

import pytest
from django.urls import reverse

from insights.agent_dashboard import AGENT_DASHBOARD
from tests.factories import SpanFactory
from tests.insights.csv_download import csv_download_rows
from tests.insights.test_agent_dashboard import agent_trace

pytestmark = pytest.mark.django_db
PAGE = "insights:agent_dashboard"


@pytest.fixture
def traffic(db):
    for day in range(3):
        trace = agent_trace(day=day, version=f"2.{day}", input_tokens=300, error_count=day % 2)
        SpanFactory(trace=trace, tool_name="lookup_order", status="error" if day else "ok")


def figures_of(response) -> dict:
    html = response.content.decode()
    start = html.index('<script id="overview-figures" type="application/json">')
    return json.loads(html[start:].split(">", 1)[1].split("</script>", 1)[0])


def test_anonymous_is_sent_to_login_and_outsiders_are_refused(client, outsider):
    assert client.get(reverse(PAGE)).status_code == 302
    client.force_login(outsider)
    assert client.get(reverse(PAGE)).status_code == 403
    assert client.get(reverse("insights:agent_chart_csv", args=["agent_volume"])).status_code == 403


def test_the_page_draws_every_chart_with_a_csv_link(client, annotator, traffic):
    client.force_login(annotator)

    response = client.get(reverse(PAGE))

    assert response.status_code == 200
    figures = figures_of(response)
    assert set(figures) == set(AGENT_DASHBOARD.builders)
    body = response.content.decode()
    for key in AGENT_DASHBOARD.builders:
        assert figures[key]["data"], key
        assert reverse("insights:agent_chart_csv", args=[key]) in body
    assert 'src="/static/vendor/plotly.min.js"' in body
    assert f'href="{reverse(PAGE)}"' in body  # the main navigation links here


@pytest.mark.parametrize("key", list(AGENT_DASHBOARD.builders))
def test_each_chart_downloads_as_csv(client, annotator, traffic, key):
    client.force_login(annotator)

    response = client.get(reverse("insights:agent_chart_csv", args=[key]))

    rows = csv_download_rows(response, key)
    assert len(rows) >= 2


def test_an_unknown_chart_is_404(client, annotator):
    client.force_login(annotator)
    assert client.get(reverse("insights:agent_chart_csv", args=["nope"])).status_code == 404


def test_agent_written_names_are_neutralized_in_csv_and_escaped_on_the_page(client, annotator):
    trace = agent_trace(model='=HYPERLINK("http://x.example")', version="<img src=x onerror=1>")
    SpanFactory(trace=trace, tool_name="@SUM(A1)")
    client.force_login(annotator)

    by_model = client.get(reverse("insights:agent_chart_csv", args=["agent_cost_by_model"]))
    tools = client.get(reverse("insights:agent_chart_csv", args=["tool_errors"]))
    page = client.get(reverse(PAGE)).content.decode()

    model = list(csv.DictReader(io.StringIO(by_model.content.decode())))[0]["model"]
    assert model == '\'=HYPERLINK("http://x.example")'
    assert list(csv.DictReader(io.StringIO(tools.content.decode())))[0]["tool"] == "'@SUM(A1)"
    assert "<img src=x onerror=1>" not in page
    assert "\\u003Cimg src=x onerror=1\\u003E" in page  # drawn by plotly from json_script


def test_the_api_answers_the_same_rows_as_json(api_client_for, annotator, outsider, traffic):
    response = api_client_for(annotator).get("/api/insights/agent/")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    charts = {chart["key"]: chart for chart in response.json()["charts"]}
    assert set(charts) == set(AGENT_DASHBOARD.builders)
    volume = charts["agent_volume"]
    assert volume["columns"][:3] == ["day", "version", "traces"]
    assert sum(row[2] for row in volume["rows"]) == 3
    assert "figure" not in volume
    assert api_client_for(outsider).get("/api/insights/agent/").status_code == 403
