"""The paired-rounds design bench/ingest.py measures with: every contender takes every place in a
round and follows every other equally often, the work is cut evenly, and the interval of the
median is the distribution-free one."""

from collections import Counter
from itertools import pairwise

import pytest

from bench.paired_rounds import (
    median_interval_ranks,
    round_order,
    round_slices,
    rounds_summary,
)


@pytest.mark.parametrize("contenders", [["ceiling", "this"], ["ceiling", "this", "base"]])
def test_each_contender_takes_each_place_and_follows_each_other_equally_often(contenders):
    orders = [round_order(contenders, index) for index in range(2 * len(contenders))]

    places = Counter((name, place) for order in orders for place, name in enumerate(order))
    follows = Counter(pair for order in orders for pair in pairwise(order))

    assert set(places.values()) == {2}
    assert len(places) == len(contenders) ** 2
    assert len(set(follows.values())) == 1
    assert len(follows) == len(contenders) * (len(contenders) - 1)


def test_the_work_is_cut_into_consecutive_slices_differing_by_one_at_most():
    slices = round_slices(list(range(103)), 10)

    assert [item for part in slices for item in part] == list(range(103))
    assert {len(part) for part in slices} == {10, 11}
    with pytest.raises(ValueError):
        round_slices([1, 2], 3)


def test_the_interval_of_the_median_is_the_order_statistics_one():
    # P(Binomial(60, 1/2) <= 21) = 0.014 <= 0.025 < P(<= 22) = 0.026.
    assert median_interval_ranks(60) == (22, 39)
    assert median_interval_ranks(20) == (6, 15)

    summary = rounds_summary([float(value) for value in range(1, 61)])
    assert (summary.median, summary.low, summary.high) == (30.5, 22.0, 39.0)
    assert summary.rounds == 60
