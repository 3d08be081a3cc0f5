"""API lists page by cursor in the order they are asked for: a trace list sorted by a column
walks every trace once (ties broken by id) and back, and a cursor whose values the column
cannot hold is refused naming the parameter, never passed to the database."""

import base64
from decimal import Decimal

import pytest

from tests.factories import ProjectFactory, TraceFactory
from traces.models import Trace

pytestmark = pytest.mark.django_db
URL = "/api/traces/"


def _cursor(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


@pytest.fixture
def traces():
    project = ProjectFactory(slug="support")
    Trace.objects.bulk_create(
        TraceFactory.build(project=project, agent_name=f"agent-{n % 3}", cost_usd=Decimal(n % 4))
        for n in range(11)
    )
    return list(Trace.objects.filter(project=project))


@pytest.mark.parametrize(("sort", "key"), [("-cost_usd", "cost_usd"), ("agent_name", "agent_name")])
def test_a_sorted_list_walks_every_trace_once_and_back(
    annotator, api_client_for, traces, sort, key
):
    api = api_client_for(annotator)
    pages, url = [], f"{URL}?sort={sort}&limit=3"
    while url:
        body = api.get(url).json()
        pages.append([row["id"] for row in body["results"]])
        last, url = url, body["next"]
    back, url = [], last
    while url:
        body = api.get(url).json()
        back.append([row["id"] for row in body["results"]])
        url = body["previous"]
    by_id = sorted(traces, key=lambda trace: trace.pk, reverse=True)
    expected = sorted(by_id, key=lambda trace: getattr(trace, key), reverse=sort[0] == "-")
    assert sum(pages, []) == [trace.pk for trace in expected]
    assert back[::-1] == pages and [len(page) for page in pages] == [3, 3, 3, 2]


@pytest.mark.parametrize(
    ("sort", "cursor"),
    [
        ("agent_name", '["agent\\u0000", 1]'),
        ("agent_name", "[7, 1]"),
        ("-cost_usd", '["Infinity", 1]'),
        ("-cost_usd", '["1e999999", 1]'),
        ("-span_count", "[1, 99999999999999999999]"),
        ("", '["2026-12-06T00:00:00", 1]'),  # a time without its zone
    ],
)
def test_a_cursor_the_column_cannot_hold_is_refused(
    annotator, api_client_for, traces, sort, cursor
):
    response = api_client_for(annotator).get(URL, {"sort": sort, "before": _cursor(cursor)})
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["before"]
