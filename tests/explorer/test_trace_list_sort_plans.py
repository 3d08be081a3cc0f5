"""Every sort of the trace list, whole and one project's, first page and a deep one, reads an
index in its order on PostgreSQL: no Sort over all matching traces, whatever their number."""

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

pytestmark = [
    pytest.mark.django_db,
    # SQLite (embedded mode) is for a few thousand traces, which any plan sorts at once.
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plans"),
]
URL = "/traces/"
SORTS = ["", *(value for value, _ in SORT_CHOICES)]


@pytest.fixture
def traces():
    """A large project and a small one (a tenth of the traces), values repeated in every
    sorted column, some traces without a start time; the planner's statistics taken."""
    large, small = ProjectFactory(slug="large"), ProjectFactory(slug="small")
    now = timezone.now()
    Trace.objects.bulk_create(
        TraceFactory.build(
            project=small if n % 10 == 0 else large,
            agent_name=f"agent-{n % 4}",
            started_at=None if n % 50 == 0 else now - timedelta(minutes=n % 97),
            span_count=n % 13,
            error_count=n % 3,
            cost_usd=Decimal(n % 11) / 100,
            input_tokens=(n % 7) * 100,
        )
        for n in range(600)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE traces_trace")


def _list_queries(client, url: str) -> tuple[list[str], str]:
    """The statements that read the page's traces in the list's order, and the next page's
    link."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    listing = [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].startswith("SELECT")
        and 'FROM "traces_trace"' in q["sql"]
        and "ORDER BY" in q["sql"]
        and "LIMIT" in q["sql"]
    ]
    found = re.search(r'<a href="([^"]*)" rel="next"', response.content.decode())
    following = urljoin(url, html.unescape(found.group(1))) if found else ""
    return listing, following


def _plan(sql: str) -> str:
    with connection.cursor() as cursor:
        # Whether an index can give the order, whatever the few test rows would make cheapest:
        # without one, a Sort stays in the plan however much it is made to cost.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_sort = off")
        cursor.execute("EXPLAIN " + sql)
        return "\n".join(row[0] for row in cursor.fetchall())


@pytest.mark.parametrize("project", ["", "small"])
@pytest.mark.parametrize("sort", SORTS)
def test_every_sort_reads_an_index_in_its_order(client, annotator, traces, sort, project):
    # given
    client.force_login(annotator)
    url = f"{URL}?per_page=25&sort={sort}&project={project}"
    first, deep_url = _list_queries(client, url)
    deep, _ = _list_queries(client, deep_url)
    # when
    plans = [_plan(sql) for sql in first + deep]
    # then
    assert len(first) == 1 and deep
    for plan in plans:
        assert "Sort" not in plan, plan
        assert "Index Scan" in plan, plan
    if project:
        # The small project's traces from its own index, not the whole list's walked past
        # the other project's.
        assert all("Index Scan using trace_project_" in plan for plan in plans), plans
