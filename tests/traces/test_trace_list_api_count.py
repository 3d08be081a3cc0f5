"""GET /api/traces/ counts matches only up to a cap, as the trace list page does, and says so."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.bounded_paginator import COUNT_CAP
from tests.factories import TraceFactory
from tests.traces.test_ingest_span_tree import refund_tree
from traces.ingest.services import ingest_span_tree
from traces.models import Project
from traces.search.documents import search_documents_build

pytestmark = pytest.mark.django_db
URL = "/api/traces/"


@pytest.fixture
def small_cap(monkeypatch):
    monkeypatch.setattr("core.pagination.COUNT_CAP", 3)


def test_below_the_cap_the_count_is_exact(annotator, api_client_for, small_cap):
    TraceFactory.create_batch(3)

    body = api_client_for(annotator).get(URL).json()

    assert (body["count"], body["count_is_lower_bound"]) == (3, False)
    assert body["next"] is None and len(body["results"]) == 3


def test_past_the_cap_the_count_is_a_lower_bound_and_next_still_leads_on(
    annotator, api_client_for, small_cap
):
    TraceFactory.create_batch(6)
    api = api_client_for(annotator)

    first = api.get(URL, {"limit": 2}).json()
    second = api.get(first["next"]).json()
    last = api.get(second["next"]).json()

    assert (first["count"], first["count_is_lower_bound"]) == (3, True)
    assert first["next"] and len(first["results"]) == 2
    # every page counts the same bounded way; the last one knows it is last by its cursor
    assert (last["count"], last["count_is_lower_bound"], last["next"]) == (3, True, None)
    assert len(last["results"]) == 2 and last["previous"]


def test_a_search_counts_with_a_limit_not_over_every_match(annotator, api_client_for, small_cap):
    project = Project.objects.create(slug="support", name="Support")
    ids = []
    for index in range(5):
        tree = refund_tree()
        tree["trace_id"] = f"{index + 1:032x}"
        ids.append(ingest_span_tree(project, tree).pk)
    search_documents_build(ids)
    api = api_client_for(annotator)

    with CaptureQueriesContext(connection) as queries:
        body = api.get(URL, {"search": "PaymentGatewayTimeout", "limit": 1}).json()

    assert (body["count"], body["count_is_lower_bound"]) == (3, True)
    counts = [q["sql"] for q in queries if "COUNT(" in q["sql"].upper()]
    assert len(counts) == 1 and "LIMIT 4" in counts[0].upper()


def test_the_schema_documents_the_lower_bound(curator, api_client_for):
    schema = api_client_for(curator).get("/api/schema/?format=json").json()
    ok = schema["paths"]["/api/traces/"]["get"]["responses"]["200"]
    ref = ok["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    properties = schema["components"]["schemas"][ref]["properties"]
    assert properties["count_is_lower_bound"]["type"] == "boolean"
    assert f"{COUNT_CAP:,}" in properties["count"]["description"]
