"""BoundedPaginator: the count stops at the cap or one row past the asked page, and says so."""

import pytest

from core.bounded_paginator import BoundedPaginator
from tests.factories import TraceFactory
from traces.models import Trace

pytestmark = pytest.mark.django_db


@pytest.fixture
def twelve_traces():
    for index in range(12):
        TraceFactory(task=f"task {index:02}")
    return Trace.objects.order_by("task")


def test_a_count_under_the_cap_is_exact(twelve_traces):
    paginator = BoundedPaginator(twelve_traces, per_page=5, cap=20)
    page = paginator.get_page(1)
    assert paginator.count == 12 and paginator.count_shown == 12
    assert not paginator.count_is_lower_bound
    assert paginator.num_pages == 3 and page.has_next()


def test_a_count_past_the_cap_is_a_lower_bound(twelve_traces):
    paginator = BoundedPaginator(twelve_traces, per_page=2, cap=5)
    page = paginator.get_page(1)
    assert paginator.count_is_lower_bound
    assert paginator.count_shown == 5 and paginator.count_shown_text == "5"
    assert [trace.task for trace in page] == ["task 00", "task 01"] and page.has_next()


def test_a_page_past_the_cap_is_still_reached_and_knows_if_another_follows(twelve_traces):
    paginator = BoundedPaginator(twelve_traces, per_page=2, page_asked="5", cap=3)
    page = paginator.get_page("5")
    assert page.number == 5 and [trace.task for trace in page] == ["task 08", "task 09"]
    assert page.has_next() and paginator.count_is_lower_bound

    last = BoundedPaginator(twelve_traces, per_page=2, page_asked="6", cap=3)
    page = last.get_page("6")
    assert [trace.task for trace in page] == ["task 10", "task 11"]
    assert not page.has_next() and not last.count_is_lower_bound and last.count == 12


@pytest.mark.parametrize("asked", ["", "abc", None])
def test_a_bad_page_number_counts_for_the_first_page(twelve_traces, asked):
    paginator = BoundedPaginator(twelve_traces, per_page=5, page_asked=asked, cap=6)
    assert paginator.count_limit == 7 and paginator.get_page(asked).number == 1


def test_a_negative_page_number_counts_no_further_than_the_cap(twelve_traces):
    paginator = BoundedPaginator(twelve_traces, per_page=5, page_asked="-4", cap=6)
    assert paginator.count_limit == 7 and paginator.count == 7
