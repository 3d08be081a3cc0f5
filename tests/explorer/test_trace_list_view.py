"""The trace list page: filters, sort, search, pagination, roles and a flat query count."""

import html
import re
from datetime import timedelta

import pytest
from django.db import connection
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.factories import (
    ProjectFactory,
    ReviewItemFactory,
    TraceFactory,
    VerdictFactory,
)

pytestmark = pytest.mark.django_db
URL = "/traces/"


@pytest.fixture
def page(client, annotator):
    client.force_login(annotator)

    def get(**params):
        response = client.get(URL, params)
        assert response.status_code == 200
        return response

    return get


def tasks(response) -> list[str]:
    return [trace.task for trace in response.context["page"]]


def test_anonymous_is_sent_to_login(client):
    response = client.get(URL)
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_user_without_role_is_refused(client, outsider):
    client.force_login(outsider)
    assert client.get(URL).status_code == 403


def test_filters_narrow_the_list(page):
    # given
    now = timezone.now()
    travel = ProjectFactory(slug="travel", name="Travel")
    refund = TraceFactory(
        task="Refund order A1042",
        agent_name="support",
        agent_version="1.0",
        task_type="refund",
        error_count=2,
        started_at=now,
    )
    hotel = TraceFactory(
        task="Book a hotel in Porto",
        agent_name="travel",
        agent_version="3.2",
        task_type="booking",
        project=travel,
        completed_at=now,
        started_at=now - timedelta(days=10),
    )
    VerdictFactory(trace=refund, status="disputed")
    ReviewItemFactory(trace=refund)
    VerdictFactory(trace=hotel, status="agreed")
    # when / then
    assert tasks(page(project="travel")) == [hotel.task]
    assert tasks(page(agent_name="support")) == [refund.task]
    assert tasks(page(agent_version="3.2")) == [hotel.task]
    assert tasks(page(task_type="refund")) == [refund.task]
    assert tasks(page(status="error")) == [refund.task]
    assert tasks(page(status="complete")) == [hotel.task]
    assert tasks(page(started_after=(now - timedelta(days=1)).date().isoformat())) == [refund.task]
    assert tasks(page(has_review_item="true")) == [refund.task]
    assert tasks(page(has_review_item="false")) == [hotel.task]
    assert tasks(page(verdict="agreed")) == [hotel.task]
    assert tasks(page(verdict="disputed")) == [refund.task]
    assert tasks(page(q="porto")) == [hotel.task]
    assert tasks(page(sort="started_at")) == [hotel.task, refund.task]
    assert tasks(page(sort="-error_count"))[0] == refund.task


def test_verdict_none_lists_unjudged_traces(page):
    judged = TraceFactory(task="judged")
    VerdictFactory(trace=judged, status="agreed")
    TraceFactory(task="not judged")
    assert tasks(page(verdict="none")) == ["not judged"]


def test_pagination(page):
    for index in range(30):
        TraceFactory(task=f"task {index:02d}", started_at=timezone.now() - timedelta(minutes=index))
    first = page(per_page=25)
    second = page(per_page=25, page=2)
    assert len(first.context["page"]) == 25 and len(second.context["page"]) == 5
    assert tasks(first)[0] == "task 00" and tasks(second)[-1] == "task 29"
    assert b'rel="next"' in first.content and b"?per_page=25&amp;after=" in first.content


def _rows(count):
    for index in range(count):
        trace = TraceFactory(task=f"Task {index}")
        VerdictFactory(trace=trace, status="agreed", score=1.0)
        ReviewItemFactory(trace=trace)


def test_query_count_does_not_grow_with_rows(client, annotator):
    # given
    client.force_login(annotator)
    _rows(3)
    with CaptureQueriesContext(connection) as few:
        client.get(URL, {"per_page": 100})
    _rows(60)
    # when
    with CaptureQueriesContext(connection) as many:
        response = client.get(URL, {"per_page": 100})
    # then
    assert len(response.context["page"]) == 63
    assert len(many) == len(few)
    assert response.content.count(b"1 open") == 63


def test_task_text_is_escaped(page):
    TraceFactory(task="<script>alert(1)</script> refund")
    body = page().content.decode()
    assert "<script>alert(1)</script>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt; refund" in body


def test_column_headers_sort_and_keep_the_filters(page):
    TraceFactory(task="few", agent_name="support", span_count=2)
    TraceFactory(task="many", agent_name="support", span_count=40)
    body = page(agent_name="support").content.decode()
    assert 'href="?agent_name=support&amp;sort=-span_count"' in body
    assert tasks(page(agent_name="support", sort="-span_count")) == ["many", "few"]


def test_traces_without_times_list_last(page):
    TraceFactory(task="timed", started_at=timezone.now())
    TraceFactory(task="untimed", started_at=None)
    assert tasks(page()) == ["timed", "untimed"]
    assert tasks(page(sort="started_at")) == ["timed", "untimed"]


def test_a_long_list_says_more_than_the_cap_and_pages_on(page, monkeypatch):
    # given a count cap below the number of traces
    monkeypatch.setattr("core.bounded_paginator.COUNT_CAP", 30)
    for index in range(33):
        TraceFactory(task=f"task {index:02}", started_at=timezone.now() - timedelta(minutes=index))
    # when
    first = page(per_page=25)
    following = re.search(r'<a href="\?([^"]*)" rel="next"', first.content.decode())
    second = page(**QueryDict(html.unescape(following.group(1))).dict())
    # then the count is stated as a bound on every page, and the next page lists the rest
    assert b"More than 30 traces." in first.content
    assert tasks(second) == [f"task {index:02}" for index in range(25, 33)]
    assert b"More than 30 traces." in second.content and b'rel="next"' not in second.content
