"""The end user a trace served: read from real instrumentations, filtered on through its own
index, and shown on the list, the trace page, the API and the export."""

import csv
import io
import json

import pytest
from django.db import connection

from accounts.roles import ANNOTATOR, CURATOR
from tests.conformance.harness import PROJECT, capturing_provider, export_to_evalsite
from tests.factories import TraceFactory, UserFactory
from traces.filters import TraceFilter
from traces.models import Trace

pytestmark = pytest.mark.django_db


@pytest.fixture
def agent_api(api_client_for):
    return api_client_for(UserFactory(roles=[ANNOTATOR]))


def test_openinference_using_user_names_the_traces_end_user(agent_api):
    from openinference.instrumentation import using_user

    from tests.conformance.test_frameworks import smolagents_support_run

    provider, exporter = capturing_provider("support")
    with using_user("cust-4417"):
        smolagents_support_run(provider)
    trace = export_to_evalsite(agent_api, exporter)

    assert trace.context["user_id"] == "cust-4417"
    listed = agent_api.get("/api/traces/", {"end_user": "cust-4417"}).json()
    assert [t["id"] for t in listed["results"]] == [trace.pk]
    assert listed["results"][0]["end_user"] == "cust-4417"


def test_an_opentelemetry_enduser_id_is_the_end_user_too(agent_api):
    provider, exporter = capturing_provider("support")
    tracer = provider.get_tracer("app")
    with tracer.start_as_current_span("invoke_agent support", attributes={"enduser.id": 4417}):
        pass
    trace = export_to_evalsite(agent_api, exporter)
    # a number is filtered and shown as its JSON text, as the database reads it
    listed = agent_api.get("/api/traces/", {"end_user": "4417"}).json()["results"]
    assert [(t["id"], t["end_user"]) for t in listed] == [(trace.pk, "4417")]
    assert agent_api.get(f"/api/traces/{trace.pk}/").json()["end_user"] == "4417"


def _traces_of_three_users():
    served = {
        "ana": TraceFactory(task="Ana's refund", context={"user_id": "ana"}),
        "ben": TraceFactory(task="Ben's refund", context={"user_id": "ben"}),
        "none": TraceFactory(task="Nobody's refund", context={"available_tools": []}),
    }
    TraceFactory(task="Ana's second refund", context={"user_id": "ana", "plan": "pro"})
    return served


def test_the_list_filters_by_end_user_and_links_each_rows_user(client):
    _traces_of_three_users()
    client.force_login(UserFactory(roles=[ANNOTATOR]))
    page = client.get("/traces/", {"end_user": "ana"}).content.decode()
    assert "Ana&#x27;s refund" in page and "Ana&#x27;s second refund" in page
    assert "Ben&#x27;s" not in page and "Nobody" not in page
    assert 'href="?end_user=ana"' in page
    everyone = client.get("/traces/").content.decode()
    assert 'href="?end_user=ben"' in everyone and everyone.count("?end_user=") == 3


def test_the_trace_page_shows_its_end_user_linked_to_their_traces(client):
    served = _traces_of_three_users()
    client.force_login(UserFactory(roles=[ANNOTATOR]))
    page = client.get(f"/traces/{served['ben'].pk}/").content.decode()
    assert 'id="trace-end-user"' in page and "/traces/?end_user=ben" in page
    nobody = client.get(f"/traces/{served['none'].pk}/").content.decode()
    assert 'id="trace-end-user"' not in nobody


def test_the_end_user_filter_is_served_by_its_index():
    _traces_of_three_users()
    queryset = TraceFilter({"end_user": "ana"}, queryset=Trace.objects.all()).qs
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        plan = queryset.explain()
    assert "trace_end_user" in plan


def test_the_export_carries_the_end_user(api_client_for):
    served = _traces_of_three_users()
    curator = api_client_for(UserFactory(roles=[ANNOTATOR, CURATOR]))
    jsonl = curator.get("/api/export/traces/", {"format": "jsonl", "end_user": "ben"})
    lines = b"".join(jsonl.streaming_content).splitlines()
    assert [(r["id"], r["end_user"]) for r in map(json.loads, lines)] == [(served["ben"].pk, "ben")]
    text = b"".join(curator.get("/api/export/traces/?format=csv").streaming_content).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert sorted(row["end_user"] for row in rows) == ["", "ana", "ana", "ben"]


def test_a_trace_api_list_without_users_says_so_with_an_empty_end_user(agent_api):
    TraceFactory(project__slug=PROJECT, context={})
    (listed,) = agent_api.get("/api/traces/").json()["results"]
    assert listed["end_user"] == ""
