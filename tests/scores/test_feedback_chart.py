"""The overview's feedback chart counts thumbs per day and leaves held-out traces out."""

import pytest

from insights.feedback import feedback_chart
from tests.factories import TraceFactory
from traces.models import Feedback

pytestmark = pytest.mark.django_db


def test_thumbs_and_ratings_are_counted_per_day_without_held_out_traces():
    trace = TraceFactory()
    hidden = TraceFactory(held_out=True)
    for key, value in (("a", 1.0), ("b", 0.0), ("c", 0.0)):
        Feedback.objects.create(trace=trace, kind="thumbs", value=value, key=key)
    Feedback.objects.create(trace=trace, kind="number", value=4.0, key="r1")
    Feedback.objects.create(trace=trace, kind="number", value=2.0, key="r2")
    Feedback.objects.create(trace=hidden, kind="thumbs", value=0.0, key="h")

    chart = feedback_chart()

    [row] = chart.rows
    assert row[1:] == [1, 2, 2, 3.0, 0]
    up, down = chart.figure["data"]
    assert (up["y"], down["y"]) == ([1], [-2])
    assert "3 thumbs, 67% down" in chart.note
