"""A recorded block shows on its trace page (even when recorded before the trace arrived) and
counts in the overview's red-flag chart."""

import pytest

from insights.scores import red_flag_chart
from metrics.models import RedFlag
from tests.factories import ProjectFactory, TraceFactory
from tests.guardrails.trajectories import SEARCH, search_steps, span_tree

pytestmark = pytest.mark.django_db

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
XSS = "<img src=x onerror=alert(1)>"


def _record_block(client, tool="search_flights"):
    payload = {
        "project": "travel",
        "trace_id": TRACE_ID,
        "record": True,
        "trajectory": span_tree(
            *[{**step, "name": tool} for step in search_steps(2)], task="LHR to JFK"
        ),
        "next_call": {"tool": tool, "input": SEARCH},
    }
    response = client.post("/api/guardrails/check", payload, format="json")
    assert response.json()["decision"] == "block"
    return response.json()


def test_block_recorded_before_the_trace_arrived_shows_on_its_page(
    client, annotator, api_client_for
):
    # given the agent recorded a block, then exported its trace under the same id
    _record_block(api_client_for(annotator), tool=XSS)
    trace = TraceFactory(project=ProjectFactory(slug="travel"), external_id=TRACE_ID)
    other = TraceFactory(project=trace.project)
    client.force_login(annotator)
    # when the trace page is opened
    page = client.get(f"/traces/{trace.pk}/").content.decode()
    # then the block is listed, its untrusted tool name escaped
    assert 'id="guardrail-blocks"' in page and "identical or near-identical" in page
    assert XSS not in page and "&lt;img src=x" in page
    # and another trace of the project shows nothing of it
    assert 'id="guardrail-blocks"' not in client.get(f"/traces/{other.pk}/").content.decode()


def test_allowed_decisions_are_not_listed_as_blocks(client, annotator, api_client_for):
    payload = {
        "project": "travel",
        "trace_id": TRACE_ID,
        "record": True,
        "trajectory": span_tree(*search_steps(1), task="LHR to JFK"),
        "next_call": {"tool": "search_flights", "input": SEARCH},
    }
    body = api_client_for(annotator).post("/api/guardrails/check", payload, format="json").json()
    assert body["decision"] == "allow" and body["recorded"]
    trace = TraceFactory(project=ProjectFactory(slug="travel"), external_id=TRACE_ID)
    client.force_login(annotator)
    assert 'id="guardrail-blocks"' not in client.get(f"/traces/{trace.pk}/").content.decode()


def test_overview_counts_runtime_blocks_beside_flags(annotator, api_client_for):
    # given one stored loop flag and two recorded loop blocks
    RedFlag.objects.create(trace=TraceFactory(), kind="loop")
    agent = api_client_for(annotator)
    _record_block(agent)
    _record_block(agent)
    # when / then
    chart = red_flag_chart()
    assert chart.columns[-1] == "runtime_blocks"
    assert chart.rows == [["loop", "Repeated identical calls", 1, 2]]
    assert [series["name"] for series in chart.figure["data"]] == [
        "after the trace",
        "blocked at runtime",
    ]
