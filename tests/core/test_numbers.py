"""Numbers as people read them."""

import pytest

from core.numbers import count_label, number_label, usd_label


@pytest.mark.parametrize(
    ("value", "label"),
    [(0.045874, "$0.046"), (0.5, "$0.50"), (1.234, "$1.23"), (12345.6, "$12,346"), (0, "$0")],
)
def test_costs_read_as_dollars(value, label):
    assert usd_label(value) == label


@pytest.mark.parametrize(("value", "label"), [(950, "950"), (1200, "1.2k"), (34_000, "34k")])
def test_counts_are_compact(value, label):
    assert count_label(value) == label


def test_measures_lose_float_noise():
    assert (number_label(0.14285714), number_label(2.0), number_label(None)) == ("0.143", "2", "—")
