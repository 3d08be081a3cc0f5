"""GET /api/traces/?search=…&attr=…: content search and attribute filters over the API."""

import pytest

from tests.factories import ProjectFactory
from tests.traces.test_ingest_otlp import recorded_spans, send
from tests.traces.test_ingest_span_tree import refund_tree
from traces.ingest.services import ingest_span_tree
from traces.models import Trace
from traces.search.documents import search_documents_build

pytestmark = pytest.mark.django_db
URL = "/api/traces/"


@pytest.fixture
def traces(db):
    """A refund trace (span tree) and a flight booking (OTLP), both built for search."""
    refund = ingest_span_tree(ProjectFactory(), refund_tree())
    send(recorded_spans())
    flight = Trace.objects.exclude(pk=refund.pk).get()
    search_documents_build([refund.pk, flight.pk])
    return refund, flight


def found(client, **params) -> list[int]:
    response = client.get(URL, params)
    assert response.status_code == 200, response.json()
    return sorted(row["id"] for row in response.json()["results"])


@pytest.mark.parametrize(
    ("params", "which"),
    [
        ({"search": "PaymentGatewayTimeout"}, "refund"),  # an error message
        ({"search": "SeatMapUnavailable"}, "flight"),  # an OTLP span's status message
        ({"search": "QX7P2L"}, "flight"),  # a tool result inside an attribute
        ({"search": '"arrived broken"'}, "refund"),  # a phrase from the task
        ({"search": "refunded OR booked"}, "both"),
        ({"search": "order -flights"}, "refund"),
        ({"attr": "gen_ai.usage.input_tokens > 2000"}, "flight"),
        ({"attr": "gen_ai.usage.input_tokens <= 812"}, "refund"),
        ({"attr": "gen_ai.request.model = claude-sonnet-4-5"}, "both"),
        ({"attr": "gen_ai.tool.name = book_flight; span.status = error"}, "flight"),
        ({"attr": "gen_ai.agent.version != 3.2.0"}, "refund"),
        ({"search": "economy", "attr": "gen_ai.usage.input_tokens > 100000"}, "none"),
        ({"search": "A1042", "agent_name": "support"}, "refund"),
    ],
)
def test_search_and_attribute_filters_find_the_right_traces(
    annotator, api_client_for, traces, params, which
):
    refund, flight = traces
    expected = {
        "refund": [refund.pk],
        "flight": [flight.pk],
        "both": sorted([refund.pk, flight.pk]),
        "none": [],
    }[which]

    assert found(api_client_for(annotator), **params) == expected


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"attr": "gen_ai.usage.input_tokens >"}, "attr"),
        ({"attr": "gen_ai.usage.input_tokens > lots"}, "attr"),
        ({"search": "x" * 501}, "search"),
    ],
)
def test_bad_syntax_is_a_400_naming_the_parameter(annotator, api_client_for, params, field):
    response = api_client_for(annotator).get(URL, params)

    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert list(response.json()["error"]["fields"]) == [field]


def test_held_out_traces_are_found_by_curators_only(annotator, curator, api_client_for, traces):
    # given the flight trace backs a held-out golden example
    refund, flight = traces
    Trace.objects.filter(pk=flight.pk).update(held_out=True)
    # then searching for its text finds it for a curator and not for an annotator
    assert found(api_client_for(curator), search="QX7P2L") == [flight.pk]
    assert found(api_client_for(annotator), search="QX7P2L") == []
    assert found(api_client_for(annotator), attr="gen_ai.tool.name = book_flight") == []


def test_search_and_attr_are_in_the_openapi_schema(annotator, api_client_for):
    schema = api_client_for(annotator).get("/api/schema/", {"format": "json"}).json()
    types = {
        p["name"]: p["schema"]["type"] for p in schema["paths"]["/api/traces/"]["get"]["parameters"]
    }

    assert types["search"] == types["attr"] == "string"
