"""Score distribution per rubric and red-flag counts per kind."""

import pytest

from insights.scores import red_flag_chart, score_distribution_chart
from metrics.models import RedFlag
from tests.factories import (
    JudgeRunFactory,
    RubricFactory,
    RubricVersionFactory,
    TraceFactory,
    VerdictFactory,
)

pytestmark = pytest.mark.django_db


def test_scores_are_counted_per_rubric_and_value():
    run = JudgeRunFactory(rubric_version=RubricVersionFactory(rubric=RubricFactory(name="Outcome")))
    for score in (1.0, 1.0, 0.0):
        VerdictFactory(run=run, status="agreed", score=score)
    VerdictFactory(run=run, status="disputed", score=None)
    assert sorted(score_distribution_chart().rows) == [["Outcome", 0.0, 1], ["Outcome", 1.0, 2]]


def test_red_flags_are_counted_per_kind_most_frequent_first():
    trace = TraceFactory()
    for kind in ("loop", "loop", "max_steps_exceeded"):
        RedFlag.objects.create(trace=trace, kind=kind)
    chart = red_flag_chart()
    assert chart.rows == [
        ["loop", "Repeated identical calls", 2, 0],
        ["max_steps_exceeded", "Step limit exceeded", 1, 0],
    ]
