"""The trace list pages by cursor (core/keyset.py): in every sort order and under a filter,
each trace once and in order (ties and traces without a start time included), the links back
give the same pages, a cursor the list did not give is refused with a 400 that says so, and a
deep page skips no rows to get there."""

import base64
import html
import re
from datetime import timedelta
from decimal import Decimal
from urllib.parse import urljoin

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.factories import ProjectFactory, TraceFactory
from traces.filters import SORT_CHOICES
from traces.models import Trace

pytestmark = pytest.mark.django_db
URL = "/traces/"
LINK = r'<a href="([^"]*)" rel="{rel}"'
SORTS = ["", *(value for value, _ in SORT_CHOICES)]


@pytest.fixture
def traces():
    """60 traces: every other one without a start time (listed last in either direction),
    the others started in groups of three at one moment, and repeated values in every sorted
    column, so every page boundary falls among ties broken by id."""
    project = ProjectFactory(slug="support")
    now = timezone.now()
    Trace.objects.bulk_create(
        TraceFactory.build(
            project=project,
            task=f"Task {n:02d}",
            agent_name=f"agent-{n % 4}",
            started_at=None if n % 2 == 0 else now - timedelta(minutes=n // 6),
            span_count=n % 5,
            error_count=n % 3,
            cost_usd=Decimal(n % 6) / 100,
            input_tokens=(n % 7) * 100,
        )
        for n in range(60)
    )
    return list(Trace.objects.filter(project=project))


def _expected(rows, sort: str) -> list[int]:
    """The list's order worked out in Python: the sort column (nulls last), then newest id."""
    term = sort or "-started_at"
    name = term.lstrip("-")
    by_id = sorted(rows, key=lambda trace: trace.pk, reverse=True)
    valued = [trace for trace in by_id if getattr(trace, name) is not None]
    valued.sort(key=lambda trace: getattr(trace, name), reverse=term.startswith("-"))
    return [trace.pk for trace in valued] + [
        trace.pk for trace in by_id if getattr(trace, name) is None
    ]


def _link(response, rel: str) -> str | None:
    found = re.search(LINK.format(rel=rel), response.content.decode())
    if not found:
        return None
    return urljoin(response.wsgi_request.get_full_path(), html.unescape(found.group(1)))


def _ids(response) -> list[int]:
    return [trace.pk for trace in response.context["page"]]


def _walk(client, url: str, rel: str) -> tuple[list[list[int]], str]:
    """Every page from `url` following `rel` links; and the last page's URL."""
    pages = []
    while True:
        response = client.get(url)
        assert response.status_code == 200
        pages.append(_ids(response))
        following = _link(response, rel)
        if following is None:
            return pages, url
        url = following


@pytest.mark.parametrize("sort", SORTS)
def test_every_sort_lists_each_trace_once_in_order_and_back(client, annotator, traces, sort):
    # given
    client.force_login(annotator)
    first = f"{URL}?per_page=25" + (f"&sort={sort}" if sort else "")
    # when
    forward, last = _walk(client, first, "next")
    backward, _ = _walk(client, last, "prev")
    # then
    assert [len(page) for page in forward] == [25, 25, 10]
    assert sum(forward, []) == _expected(traces, sort)
    assert list(reversed(backward)) == forward


def test_a_filter_and_sort_stay_in_the_links(client, annotator, traces):
    client.force_login(annotator)
    first = f"{URL}?status=error&sort=-cost_usd&per_page=25"
    forward, last = _walk(client, first, "next")
    listed = [trace for trace in traces if trace.error_count]
    assert [len(page) for page in forward] == [25, 15]
    assert sum(forward, []) == _expected(listed, "-cost_usd")
    assert "status=error" in last and "sort=-cost_usd" in last and "after=" in last


def test_first_page_link_drops_the_cursor_and_keeps_the_filters(client, annotator, traces):
    client.force_login(annotator)
    second = _link(client.get(f"{URL}?sort=-span_count&per_page=25"), "next")
    response = client.get(second)
    assert _link(response, "first").endswith("?sort=-span_count&per_page=25")


def test_export_and_judge_links_leave_the_position_out(client, curator, traces):
    client.force_login(curator)
    second = _link(client.get(f"{URL}?status=error&per_page=25"), "next")
    body = client.get(second).content.decode()
    export = re.search(r'href="([^"]*)" id="export-jsonl"', body).group(1)
    judge = re.search(r'href="([^"]*)" id="judge-listed"', body).group(1)
    for link in (export, judge):
        assert "status" in link and "after" not in link


@pytest.mark.parametrize(
    "query",
    [
        "after=not-a-cursor",
        "before=" + base64.urlsafe_b64encode(b'["x", 3]').decode(),
        # A cursor of another sort order: a span count where a start time belongs.
        "after=" + base64.urlsafe_b64encode(b"[12, 3]").decode(),
        "after=" + base64.urlsafe_b64encode(b'{"id": 3}').decode(),
    ],
)
def test_a_cursor_the_list_did_not_give_is_refused_and_says_so(client, annotator, traces, query):
    client.force_login(annotator)
    response = client.get(f"{URL}?{query}")
    assert response.status_code == 400
    name = query.split("=")[0]
    assert f"{name}: not a position this list gave" in response.content.decode()
    assert _ids(response) == _expected(traces, "")[:50]  # the first page, still usable


def test_a_tampered_cost_cursor_is_refused(client, annotator, traces):
    client.force_login(annotator)
    cursor = base64.urlsafe_b64encode(b'["NaN", 3]').decode()
    response = client.get(f"{URL}?sort=-cost_usd&after={cursor}")
    assert response.status_code == 400
    assert "after: not a position this list gave" in response.content.decode()


def test_a_deep_page_reads_from_its_cursor_not_past_the_rows_before(client, annotator, traces):
    # given
    client.force_login(annotator)
    response = client.get(f"{URL}?per_page=25")
    deep = _link(client.get(_link(response, "next")), "next")
    # when
    with CaptureQueriesContext(connection) as first_queries:
        client.get(f"{URL}?per_page=25")
    with CaptureQueriesContext(connection) as deep_queries:
        client.get(deep)
    # then: the same statements (the nulls' segment is read when the valued rows run out)
    listing = [q["sql"] for q in deep_queries.captured_queries if "traces_trace" in q["sql"]]
    assert not any("OFFSET" in sql for sql in listing)
    assert len(deep_queries) <= len(first_queries) + 1
