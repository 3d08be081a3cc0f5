"""rubric_criteria_stats: yes share, flips between passes, people overturning, vague flags."""

import pytest

from judges.adaptive_rubrics.criteria_stats import rubric_criteria_stats
from judges.adaptive_rubrics.generation import criteria_version_create, rubric_version_approve
from reviews.models import Annotation, ReviewItem
from tests.factories import QueueFactory
from tests.judges import sample_traces

pytestmark = pytest.mark.django_db

SPECIFIC = "Did cancel_order succeed before the answer said the order was cancelled?"
GENERIC = "Was the agent polite to the customer?"


@pytest.fixture
def mixed_rubric(approved_generated, curator):
    criteria = [{"question": SPECIFIC, "evidence": "cancel_order output"}, {"question": GENERIC}]
    version = criteria_version_create(rubric=approved_generated.rubric, criteria=criteria)
    return rubric_version_approve(version=version, user=curator)


def _by_question(stats):
    return {row.question: row for row in stats}


def test_a_criterion_that_always_answers_yes_is_flagged_vague(
    mixed_rubric, default_config, judge_all, cancellation_traces
):
    # given six cancellations, half of them confident after a failed cancel_order
    judge_all(mixed_rubric, default_config, cancellation_traces)

    # when the statistics are computed
    stats = _by_question(rubric_criteria_stats(mixed_rubric))

    # then the generic question answered yes 12 of 12 times and is flagged with a rewrite hint
    assert (stats[GENERIC].answers, stats[GENERIC].yes) == (12, 12)
    assert [f.kind for f in stats[GENERIC].flags] == ["vague"]
    assert "Rewrite" in stats[GENERIC].flags[0].message
    assert stats[SPECIFIC].yes_rate == 0.5
    assert stats[SPECIFIC].flags == []
    assert stats[SPECIFIC].flip_rate == 0.0


def test_flips_between_passes_are_counted_per_criterion(
    mixed_rubric, default_config, judge_all, simulator
):
    simulator.set(script=["ok", "flip", "ok", "ok"])
    traces = [sample_traces.support_cancel_ok(), sample_traces.support_cancel_ok()]

    judge_all(mixed_rubric, default_config, traces)

    stats = _by_question(rubric_criteria_stats(mixed_rubric))
    assert (stats[SPECIFIC].flips, stats[SPECIFIC].pairs) == (1, 2)
    assert [f.kind for f in stats[SPECIFIC].flags] == ["unstable"]
    assert stats[GENERIC].flips == 0


def test_people_overturning_a_criterion_is_counted(
    mixed_rubric, default_config, judge_all, cancellation_traces, annotator
):
    judge_all(mixed_rubric, default_config, cancellation_traces)
    queue = QueueFactory()
    for trace in cancellation_traces:
        item = ReviewItem.objects.create(
            queue=queue, trace=trace, rubric_version=mixed_rubric, reason="flagged"
        )
        Annotation.objects.create(
            item=item,
            annotator=annotator,
            score=0.5,
            criteria_results=[
                {
                    "question": SPECIFIC,
                    "met": trace.error_count == 0 and "Done!" not in trace.final_answer,
                },
                {"question": GENERIC, "met": False},
            ],
        )

    stats = _by_question(rubric_criteria_stats(mixed_rubric))

    assert (stats[SPECIFIC].reviewed, stats[SPECIFIC].overturned) == (6, 0)
    assert (stats[GENERIC].reviewed, stats[GENERIC].overturned) == (6, 6)
    assert "overturned" in [f.kind for f in stats[GENERIC].flags]


def test_statistics_take_a_fixed_number_of_queries(
    mixed_rubric, default_config, judge_all, cancellation_traces, django_assert_num_queries
):
    judge_all(mixed_rubric, default_config, cancellation_traces)

    with django_assert_num_queries(2):
        rubric_criteria_stats(mixed_rubric)
