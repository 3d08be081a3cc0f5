"""Cursor pages (core/keyset.py) on the golden list, the eval-run list and a review queue:
every row once in order, ties on the sort key broken by id, rows inserted or settled between
page loads neither repeated nor skipped, and links that mean the same rows when reloaded."""

import datetime as dt
import html
import re
from urllib.parse import urljoin

import pytest
from django.urls import reverse
from django.utils import timezone

from core.keyset import keyset_page
from golden.models import DatasetVersion, EvalRun, GoldenExample
from reviews.models import ReviewItem, ReviewStatus
from tests.factories import (
    GoldenExampleFactory,
    QueueFactory,
    ReviewItemFactory,
    TraceFactory,
)

pytestmark = pytest.mark.django_db

PER_PAGE = 50
LINK = r'<a href="([^"]*)" rel="{rel}"'


def _link(response, rel: str) -> str | None:
    """The page's link of that rel, as an absolute path (the links are query strings)."""
    found = re.search(LINK.format(rel=rel), response.content.decode())
    if not found:
        return None
    return urljoin(response.wsgi_request.get_full_path(), html.unescape(found.group(1)))


def _row_ids(response, pattern: str) -> list[int]:
    return [int(pk) for pk in re.findall(pattern, response.content.decode())]


def _examples(count: int, *, base: dt.datetime, tie_every: int = 7) -> list[int]:
    """`count` examples whose created_at repeats in groups of `tie_every` (a bulk import
    stamps many rows with one time), newest group first in id order."""
    GoldenExample.objects.bulk_create(
        GoldenExampleFactory.build(task=f"Refund order A{1000 + n} to the card on file.")
        for n in range(count)
    )
    ids = list(GoldenExample.objects.order_by("id").values_list("id", flat=True))[-count:]
    for position, pk in enumerate(ids):
        stamp = base - dt.timedelta(minutes=position // tie_every)
        GoldenExample.objects.filter(pk=pk).update(created_at=stamp)
    return ids


def _newest_first(model, ids) -> list[int]:
    rows = model.objects.filter(pk__in=ids).order_by("-created_at", "-id")
    return list(rows.values_list("id", flat=True))


EXAMPLE_ROW = r'<td><a href="/golden/examples/(\d+)/">#'


def _walk(client, url: str, pattern: str) -> list[list[int]]:
    pages = []
    while url:
        response = client.get(url)
        assert response.status_code == 200
        pages.append(_row_ids(response, pattern))
        url = _link(response, "next")
    return pages


def test_golden_pages_list_every_example_once_in_order_with_ties_broken_by_id(client, annotator):
    ids = _examples(133, base=timezone.now())
    client.force_login(annotator)
    pages = _walk(client, reverse("golden:example_list"), EXAMPLE_ROW)
    assert [len(page) for page in pages] == [50, 50, 33]
    assert sum(pages, []) == _newest_first(GoldenExample, ids)


def test_rows_inserted_between_loads_are_neither_repeated_nor_skipped(client, annotator):
    now = timezone.now()
    ids = _examples(120, base=now - dt.timedelta(hours=1))
    client.force_login(annotator)
    first = client.get(reverse("golden:example_list"))
    seen = _row_ids(first, EXAMPLE_ROW)
    older = _link(first, "next")
    # New examples arrive at the top while the reader is on page 1; one more joins a tie
    # group the reader has already passed (same created_at, higher id: it sorts before).
    newcomers = _examples(30, base=now)
    passed_tie = GoldenExample.objects.get(pk=seen[10]).created_at
    late = _examples(1, base=passed_tie)
    rest = _walk(client, older, EXAMPLE_ROW)
    walked = seen + sum(rest, [])
    assert sorted(walked) == sorted(ids), "every row that was there is listed once"
    assert not set(walked) & set(newcomers + late)
    # The first page, reloaded, starts with the newcomers.
    reloaded = _row_ids(client.get(reverse("golden:example_list")), EXAMPLE_ROW)
    assert reloaded[:30] == _newest_first(GoldenExample, newcomers)


def test_a_cursor_link_is_stable_and_newer_leads_back(client, annotator):
    _examples(160, base=timezone.now() - dt.timedelta(hours=1))
    client.force_login(annotator)
    first = client.get(reverse("golden:example_list") + "?task_type=order_cancellation")
    second_url = _link(first, "next")
    assert "task_type=order_cancellation" in second_url and "after=" in second_url
    second = client.get(second_url)
    _examples(5, base=timezone.now())  # arrivals do not move a bookmarked page
    again = client.get(second_url)
    assert _row_ids(again, EXAMPLE_ROW) == _row_ids(second, EXAMPLE_ROW)
    third = client.get(_link(second, "next"))
    back = client.get(_link(third, "prev"))
    assert _row_ids(back, EXAMPLE_ROW) == _row_ids(second, EXAMPLE_ROW)
    # From page 2, Newer is the fifty rows just above it (page 1 as it was read); the five
    # arrivals are one step further up, and that step is a full first page.
    up = client.get(_link(second, "prev"))
    assert _row_ids(up, EXAMPLE_ROW) == _row_ids(first, EXAMPLE_ROW)
    top = client.get(_link(up, "prev"))
    top_ids = _row_ids(top, EXAMPLE_ROW)
    assert len(top_ids) == PER_PAGE and top_ids[5:] == _row_ids(first, EXAMPLE_ROW)[:45]
    assert _link(top, "prev") is None and _link(top, "first") is None


def test_an_old_page_number_link_still_answers(client, annotator):
    ids = _examples(120, base=timezone.now())
    client.force_login(annotator)
    response = client.get(reverse("golden:example_list") + "?page=2")
    assert _row_ids(response, EXAMPLE_ROW) == _newest_first(GoldenExample, ids)[50:100]
    assert "after=" in _link(response, "next") and "page=" not in _link(response, "next")


@pytest.mark.parametrize("cursor", ["not-a-cursor", "WzEsMl0", "WyJ4IiwxXQ"])
def test_a_cursor_this_list_did_not_give_is_refused_by_name(client, annotator, cursor):
    _examples(3, base=timezone.now())
    client.force_login(annotator)
    response = client.get(reverse("golden:example_list") + f"?after={cursor}")
    assert response.status_code == 400
    assert "after: not a position this list gave" in response.content.decode()
    assert len(_row_ids(response, EXAMPLE_ROW)) == 3  # the first page, with the reason


def test_a_page_number_past_the_legacy_range_is_refused_by_name(client, annotator):
    client.force_login(annotator)
    response = client.get(reverse("golden:example_list") + "?page=5000")
    assert response.status_code == 400 and "page: must be a whole number" in (
        response.content.decode()
    )


def test_eval_runs_page_by_cursor(client, annotator):
    version = DatasetVersion.objects.create(name="v1", content_hash="0" * 64)
    EvalRun.objects.bulk_create(
        EvalRun(name=f"nightly {n}", agent_version="1.0", dataset_version=version)
        for n in range(75)
    )
    stamp = timezone.now()
    EvalRun.objects.update(created_at=stamp)  # all tied: the id alone orders them
    client.force_login(annotator)
    pages = _walk(client, reverse("golden:eval_run_list"), r'<tr id="run-(\d+)">')
    assert [len(page) for page in pages] == [50, 25]
    assert sum(pages, []) == sorted(EvalRun.objects.values_list("id", flat=True), reverse=True)


def test_queue_pages_survive_items_settled_and_queued_between_loads(client, curator):
    queue = QueueFactory(name="Support")
    trace = TraceFactory()
    items = ReviewItem.objects.bulk_create(
        ReviewItemFactory.build(queue=queue, trace=trace, priority=n % 2, task_excerpt=f"t{n}")
        for n in range(130)
    )
    ReviewItem.objects.update(created_at=timezone.now() - dt.timedelta(hours=2))
    client.force_login(curator)
    url = reverse("reviews:queue_detail", args=[queue.pk])
    first = client.get(url)
    row = r'name="item_ids" value="(\d+)"'
    seen = _row_ids(first, row)
    assert len(seen) == PER_PAGE
    # While the reader looks at page 1: three of its items are settled, and new urgent
    # items are queued (they sort first, so they go to page 1, not into page 2).
    ReviewItem.objects.filter(pk__in=seen[:3]).update(status=ReviewStatus.RESOLVED)
    urgent = ReviewItem.objects.bulk_create(
        ReviewItemFactory.build(queue=queue, trace=trace, priority=5) for _ in range(4)
    )
    rest = _walk(client, _link(first, "next"), row)
    walked = seen + sum(rest, [])
    assert sorted(walked) == sorted(item.pk for item in items)
    assert not set(walked) & {item.pk for item in urgent}
    expected = ReviewItem.objects.filter(pk__in=[item.pk for item in items]).order_by(
        "-priority", "created_at", "id"
    )
    assert walked[PER_PAGE:] == [
        pk for pk in expected.values_list("id", flat=True) if pk not in seen
    ]
    # The count states the open items: 130, less 3 settled, plus 4 queued.
    assert "131 items" in client.get(url).content.decode()


def test_before_at_the_top_serves_a_full_first_page():
    TraceFactory.create_batch(5)
    for n in range(12):
        GoldenExampleFactory(task=f"task {n}")
    examples = GoldenExample.objects.all()
    order = ("-created_at", "-id")
    second = keyset_page(
        examples, order, {"after": keyset_page(examples, order, {}, 5).older_cursor}, 5
    )
    up = keyset_page(examples, order, {"before": second.newer_cursor}, 5)
    assert [e.pk for e in up] == [e.pk for e in keyset_page(examples, order, {}, 5)]
    assert up.is_first and not up.newer_cursor and up.older_cursor
