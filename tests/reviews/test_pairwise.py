"""Pairwise review: pairs made once with a recorded random side, answers in sides stored as
preferences, overlap and adjudication as in the other queues, agreement measured."""

import pytest
from django.contrib.auth.models import Group

from accounts.roles import ANNOTATOR
from core.errors import ApplicationError
from reviews.agreement import queue_agreement
from reviews.claims import LockLost, review_item_claim_next
from reviews.models import Annotation, PairwiseSource, Queue, QueueKind, ReviewStatus
from reviews.pairwise import (
    OVERALL,
    pairwise_answer,
    pairwise_item_create,
    pairwise_layout,
    pairwise_queue,
    pairwise_run_preferences,
)
from reviews.services import review_item_resolve
from tests.factories import RubricVersionFactory, TraceFactory, UserFactory

pytestmark = pytest.mark.django_db

TASK = "Cancel my most recent order, please.  "


def _pair(**extra):
    baseline = TraceFactory(task=TASK, agent_version="1.4.0")
    candidate = TraceFactory(task=" Cancel my most recent order, please.", agent_version="1.5.0")
    item, created = pairwise_item_create(
        baseline_trace=baseline, candidate_trace=candidate, source=PairwiseSource.TRACES, **extra
    )
    assert created
    return item, baseline, candidate


def _annotator(name):
    user = UserFactory(username=name)
    user.groups.add(Group.objects.get_or_create(name=ANNOTATOR)[0])
    return user


def _side_for(item, preference):
    return pairwise_layout(item.pairwise).side_of(preference)


def test_a_pair_is_queued_once_with_its_sides_recorded():
    # given a pair of trajectories of one task (whitespace differs)
    item, baseline, candidate = _pair()
    # when the same pair is queued again
    again, created = pairwise_item_create(
        baseline_trace=baseline, candidate_trace=candidate, source=PairwiseSource.TRACES
    )
    # then it is the same item, in the pairwise queue, showing the left trace as its own
    assert (again.pk, created) == (item.pk, False)
    assert item.queue.kind == QueueKind.PAIRWISE
    layout = pairwise_layout(item.pairwise)
    assert item.trace_id == layout.left_trace_id
    assert {layout.left_trace_id, layout.right_trace_id} == {baseline.pk, candidate.pk}
    assert (layout.left_trace_id == candidate.pk) == item.pairwise.candidate_on_left


def test_sides_are_drawn_at_random_not_always_the_same():
    lefts = set()
    for index in range(24):
        baseline = TraceFactory(task=f"Task {index}")
        candidate = TraceFactory(task=f"Task {index}")
        item, _ = pairwise_item_create(
            baseline_trace=baseline, candidate_trace=candidate, source=PairwiseSource.TRACES
        )
        lefts.add(item.pairwise.candidate_on_left)
    assert lefts == {True, False}


def test_traces_of_different_tasks_or_held_out_are_refused():
    baseline = TraceFactory(task="Book a flight to Berlin.")
    with pytest.raises(ApplicationError) as different:
        pairwise_item_create(
            baseline_trace=baseline,
            candidate_trace=TraceFactory(task="Cancel my order."),
            source=PairwiseSource.TRACES,
        )
    assert different.value.field == "candidate_trace"
    held = TraceFactory(task="Book a flight to Berlin.", held_out=True)
    with pytest.raises(ApplicationError) as hidden:
        pairwise_item_create(
            baseline_trace=baseline, candidate_trace=held, source=PairwiseSource.TRACES
        )
    assert hidden.value.field == "candidate_trace" and "held-out" in hidden.value.message


def test_a_single_item_queue_is_not_a_pairwise_queue():
    with pytest.raises(ApplicationError) as error:
        _pair(queue=Queue.objects.create(name="Disputes"))
    assert error.value.field == "queue"


def test_answer_in_sides_is_stored_as_the_preference_of_the_pair(annotator):
    # given a pair with a rubric of two criteria, claimed by an annotator
    version = RubricVersionFactory(
        criteria=[{"question": "Did it look the order up?"}, {"question": "Is the answer true?"}]
    )
    queue = pairwise_queue()
    queue.rubric = version.rubric
    queue.save()
    item, baseline, candidate = _pair()
    assert review_item_claim_next(user=annotator, queue=queue).pk == item.pk
    baseline_side = _side_for(item, "baseline")
    # when the annotator prefers the baseline overall and on the first criterion
    annotation = pairwise_answer(
        item=item, user=annotator, answers=[baseline_side, "equal", baseline_side]
    )
    # then the score says "baseline" whichever side it was on, and the item settles
    assert annotation.score == 0.0
    assert [r["preferred"] for r in annotation.criteria_results] == [
        "baseline",
        "equal",
        "baseline",
    ]
    assert annotation.criteria_results[-1]["question"] == OVERALL
    item.refresh_from_db()
    assert item.status == ReviewStatus.RESOLVED and item.resolved_score == 0.0


def test_wrong_answers_are_refused_by_field(annotator):
    item, *_ = _pair()
    review_item_claim_next(user=annotator, queue=item.queue)
    for answers in (["left"], [], ["A", "B"], "A"):
        with pytest.raises(ApplicationError) as error:
            pairwise_answer(item=item, user=annotator, answers=answers)
        assert error.value.field == "answers"
    # and the scored path cannot bypass the sides
    with pytest.raises(ApplicationError) as scored:
        review_item_resolve(item=item, user=annotator, score=1)
    assert scored.value.field == "answers"
    assert not Annotation.objects.filter(item=item).exists()


def test_an_unclaimed_item_is_not_answered(annotator):
    item, *_ = _pair()
    with pytest.raises(LockLost):
        pairwise_answer(item=item, user=annotator, answers=["A"])


def test_two_annotators_who_disagree_go_to_a_curator_who_settles_it(curator):
    # given a queue with overlap 2
    queue = pairwise_queue()
    queue.annotators_per_item = 2
    queue.save()
    item, *_ = _pair()
    first, second = _annotator("ann1"), _annotator("ann2")
    for user, preference in ((first, "baseline"), (second, "candidate")):
        assert review_item_claim_next(user=user, queue=queue).pk == item.pk
        pairwise_answer(item=item, user=user, answers=[_side_for(item, preference)])
    item.refresh_from_db()
    assert item.status == ReviewStatus.OPEN and item.needs_curator
    # when a curator adjudicates
    pairwise_answer(item=item, user=curator, answers=["equal"], adjudicate=True)
    # then the item settles on "equal"
    item.refresh_from_db()
    assert (item.status, item.resolved_score) == (ReviewStatus.RESOLVED, 0.5)


def test_agreement_of_pairwise_answers_is_measured():
    queue = pairwise_queue()
    queue.annotators_per_item = 2
    queue.save()
    first, second = _annotator("ann1"), _annotator("ann2")
    agreed = ["baseline", "baseline", "candidate", "equal", "candidate"]
    second_said = ["baseline", "baseline", "candidate", "equal", "baseline"]
    for index, (one, two) in enumerate(zip(agreed, second_said, strict=True)):
        baseline, candidate = TraceFactory(task=f"T{index}"), TraceFactory(task=f"T{index}")
        item, _ = pairwise_item_create(
            baseline_trace=baseline, candidate_trace=candidate, source=PairwiseSource.TRACES
        )
        for user, preference in ((first, one), (second, two)):
            review_item_claim_next(user=user, queue=queue)
            pairwise_answer(item=item, user=user, answers=[_side_for(item, preference)])
    agreement = queue_agreement(queue)
    assert agreement.items == 5 and agreement.raters == 2
    assert agreement.level == "ordinal"
    assert 0.3 < agreement.cohen_kappa < 1.0


def test_run_preferences_take_settled_answers_and_report_open_ones(annotator):
    settled, *_ = _pair(baseline_run_id=7, candidate_run_id=8, task_key="cancel")
    baseline, candidate = TraceFactory(task="Other"), TraceFactory(task="Other")
    pairwise_item_create(
        baseline_trace=baseline,
        candidate_trace=candidate,
        source=PairwiseSource.EVAL_RUNS,
        baseline_run_id=7,
        candidate_run_id=8,
        task_key="other",
    )
    review_item_claim_next(user=annotator, queue=settled.queue)
    pairwise_answer(item=settled, user=annotator, answers=[_side_for(settled, "candidate")])
    assert pairwise_run_preferences(7, 8) == {"cancel": "candidate", "other": None}
    assert pairwise_run_preferences(8, 7) == {}
