"""A trace's spans over the API come a page at a time: the detail holds the first page and
a cursor to the rest, in display order, each span with its parent, so a client rebuilds the
tree; a small trace's detail is what it always was."""

import json

import pytest

from traces.ingest.services import ingest_otlp
from traces.models import Trace

pytestmark = pytest.mark.django_db
TRACE_ID = "7a" * 16
SPANS = 1_100


def _big_trace(count=SPANS) -> Trace:
    """A root, ten agents under it, and tool calls under each agent, in start order."""
    spans = []
    for index in range(count):
        if index == 0:
            parent = ""
        elif index <= 10:
            parent = f"{1:016x}"  # an agent under the root
        else:
            parent = f"{2 + index % 10:016x}"  # a tool call under one of the agents
        spans.append(
            {
                "traceId": TRACE_ID,
                "spanId": f"{index + 1:016x}",
                "parentSpanId": parent,
                "name": "invoke_agent" if index == 0 else f"step {index}",
                "startTimeUnixNano": str(1_760_000_000_000_000_000 + index * 1000),
                "endTimeUnixNano": str(1_760_000_000_000_000_000 + index * 1000 + 500),
            }
        )
    body = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": spans}]}]}
    ingest_otlp(body=json.dumps(body).encode(), content_type="application/json")
    return Trace.objects.get(external_id=TRACE_ID)


def test_a_big_traces_detail_holds_the_first_page_and_a_cursor_to_the_rest(
    api_client_for, annotator
):
    trace = _big_trace()
    client = api_client_for(annotator)

    detail = client.get(f"/api/traces/{trace.pk}/").json()
    assert len(detail["spans"]) == 1000
    assert detail["span_count"] == SPANS
    seen = [span["span_id"] for span in detail["spans"]]
    next_url = detail["spans_next"]
    pages = 0
    while next_url:
        page = client.get(next_url).json()
        seen += [span["span_id"] for span in page["results"]]
        next_url = page["next"]
        pages += 1

    assert pages == 1
    assert seen == [f"{index + 1:016x}" for index in range(SPANS)]  # display order, once each


def test_pages_keep_the_trees_shape_parents_before_children(api_client_for, annotator):
    trace = _big_trace(300)
    client = api_client_for(annotator)
    seen: set[str] = set()
    url = f"/api/traces/{trace.pk}/spans/?limit=40"
    while url:
        page = client.get(url).json()
        assert len(page["results"]) <= 40
        for span in page["results"]:
            assert span["parent_span_id"] == "" or span["parent_span_id"] in seen
            seen.add(span["span_id"])
        url = page["next"]

    assert len(seen) == 300


def test_a_small_traces_detail_is_unchanged_with_no_cursor(api_client_for, annotator):
    trace = _big_trace(12)

    detail = api_client_for(annotator).get(f"/api/traces/{trace.pk}/").json()

    assert len(detail["spans"]) == 12
    assert detail["spans_next"] is None


@pytest.mark.parametrize("query", ["span_limit=0", "span_limit=100000", "span_limit=x"])
def test_a_bad_span_limit_is_refused_by_name(api_client_for, annotator, query):
    trace = _big_trace(3)

    answer = api_client_for(annotator).get(f"/api/traces/{trace.pk}/?{query}")

    assert answer.status_code == 400
    assert "span_limit" in answer.json()["error"]["fields"]


def test_a_garbled_cursor_is_a_400_and_a_hidden_trace_a_404(api_client_for, annotator):
    trace = _big_trace(3)
    client = api_client_for(annotator)

    by_hand = client.get(f"/api/traces/{trace.pk}/spans/", {"cursor": "cD14eXo="})  # p=xyz
    assert by_hand.status_code == 400
    assert "cursor" in by_hand.json()["error"]["fields"]
    assert client.get("/api/traces/999999/spans/").status_code == 404


def test_the_schema_documents_the_span_pages(api_client_for, admin_user):
    schema = api_client_for(admin_user).get("/api/schema/?format=json").json()

    detail = schema["paths"]["/api/traces/{trace_id}/"]["get"]
    limit = next(p for p in detail["parameters"] if p["name"] == "span_limit")
    assert limit["schema"]["default"] == 1000
    assert "spans_next" in json.dumps(schema["components"]["schemas"]["TracePagedDetailOut"])
    assert "/api/traces/{trace_id}/spans/" in schema["paths"]
