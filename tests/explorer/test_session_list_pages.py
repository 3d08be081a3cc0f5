"""The session list pages by cursor (core/keyset.py), latest activity first: each session once
and in order, those without a time last, the links back give the same pages, and a cursor the
list did not give is refused with a 400 that says so."""

import html
import re
from datetime import timedelta
from urllib.parse import urljoin

import pytest
from django.utils import timezone

from tests.factories import ProjectFactory
from traces.models import Session

pytestmark = pytest.mark.django_db
URL = "/traces/sessions/"


@pytest.fixture
def sessions():
    """120 sessions of one trace: a third without a last time, the rest in groups of four at
    one moment, so page boundaries fall among ties broken by id and among the nulls."""
    project = ProjectFactory(slug="support")
    now = timezone.now()
    Session.objects.bulk_create(
        Session(
            project=project,
            external_id=f"conversation-{n:03d}",
            trace_count=1,
            last_trace_at=None if n % 3 == 0 else now - timedelta(minutes=n // 4),
        )
        for n in range(120)
    )
    rows = list(Session.objects.filter(project=project))
    valued = sorted(
        (s for s in rows if s.last_trace_at), key=lambda s: (s.last_trace_at, s.pk), reverse=True
    )
    nulls = sorted((s for s in rows if not s.last_trace_at), key=lambda s: s.pk, reverse=True)
    return [s.pk for s in valued + nulls]


def _link(response, rel: str) -> str | None:
    found = re.search(rf'<a href="([^"]*)" rel="{rel}"', response.content.decode())
    if not found:
        return None
    return urljoin(response.wsgi_request.get_full_path(), html.unescape(found.group(1)))


def _walk(client, url: str, rel: str):
    pages = []
    while True:
        response = client.get(url)
        assert response.status_code == 200
        pages.append([session.pk for session in response.context["page"]])
        following = _link(response, rel)
        if following is None:
            return pages, url
        url = following


def test_pages_list_each_session_once_latest_first_and_back(client, annotator, sessions):
    client.force_login(annotator)
    forward, last = _walk(client, URL, "next")
    backward, _ = _walk(client, last, "prev")
    assert [len(page) for page in forward] == [50, 50, 20]
    assert sum(forward, []) == sessions
    assert list(reversed(backward)) == forward


def test_a_cursor_the_list_did_not_give_is_refused_and_says_so(client, annotator, sessions):
    client.force_login(annotator)
    response = client.get(f"{URL}?before=bm90LWEtY3Vyc29y")
    assert response.status_code == 400
    assert "before: not a position this list gave" in response.content.decode()
    assert [session.pk for session in response.context["page"]] == sessions[:50]
