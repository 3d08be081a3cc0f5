"""The trace list page's content search and attribute boxes."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import SpanFactory, TraceFactory
from traces.search.documents import search_documents_build

pytestmark = pytest.mark.django_db
URL = "/traces/"


def indexed_trace(task: str, output: str, **attributes):
    trace = TraceFactory(task=task, last_span_received_at=None)
    SpanFactory(trace=trace, output=output, attributes=attributes)
    search_documents_build([trace.pk])
    return trace


def tasks(response) -> list[str]:
    return [trace.task for trace in response.context["page"]]


def test_the_boxes_filter_the_list_and_keep_their_values(client, annotator):
    # given
    client.force_login(annotator)
    indexed_trace("Refund order A1042", "gateway timeout", **{"gen_ai.usage.input_tokens": 900})
    indexed_trace("Book a hotel", "gateway timeout", **{"gen_ai.usage.input_tokens": 4200})
    indexed_trace("Reset a password", "done", **{"gen_ai.usage.input_tokens": 5000})
    # when
    response = client.get(URL, {"search": "timeout", "attr": "gen_ai.usage.input_tokens > 1000"})
    # then
    assert response.status_code == 200
    assert tasks(response) == ["Book a hotel"]
    body = response.content.decode()
    assert 'name="search" value="timeout"' in body
    assert 'value="gen_ai.usage.input_tokens &gt; 1000"' in body


def test_bad_attribute_syntax_is_a_400_that_says_why_and_lists_nothing(client, annotator):
    client.force_login(annotator)
    indexed_trace("Refund order A1042", "ok")

    response = client.get(URL, {"attr": "gen_ai.usage.input_tokens > lots"})

    assert response.status_code == 400
    assert tasks(response) == []
    assert "needs a number" in response.content.decode()
    assert 'role="alert"' in response.content.decode()


def test_searched_text_is_escaped_back_into_the_box(client, annotator):
    client.force_login(annotator)

    body = client.get(URL, {"search": '"><script>alert(1)</script>'}).content.decode()

    assert "<script>alert(1)</script>" not in body


def test_held_out_traces_are_not_listed_to_annotators(client, annotator, curator):
    hidden = indexed_trace("Held-out refund", "secret zanzibar answer")
    hidden.held_out = True
    hidden.save(update_fields=["held_out"])

    client.force_login(annotator)
    assert tasks(client.get(URL, {"search": "zanzibar"})) == []
    client.force_login(curator)
    assert tasks(client.get(URL, {"search": "zanzibar"})) == ["Held-out refund"]


def test_query_count_does_not_grow_with_matches(client, annotator):
    client.force_login(annotator)
    params = {"search": "timeout", "attr": "region = eu", "per_page": 100}
    for n in range(2):
        indexed_trace(f"Task {n}", "timeout", region="eu")
    with CaptureQueriesContext(connection) as few:
        client.get(URL, params)
    for n in range(30):
        indexed_trace(f"More {n}", "timeout", region="eu")

    with CaptureQueriesContext(connection) as many:
        response = client.get(URL, params)

    assert len(response.context["page"]) == 32
    assert len(many) == len(few)
