import pytest

from evalsite.api import ApplicationError
from golden.models import ExampleOrigin
from golden.services import golden_example_promote, golden_example_promote_item
from reviews.models import ReviewStatus
from reviews.signals import review_item_promoted
from tests.factories import ReviewItemFactory
from tests.golden.builders import cancel_order_trace, red_flag, resolved_item


def test_promoting_fills_the_example_from_the_trace(curator):
    # given a resolved item on a support trace that fired a red flag
    trace = cancel_order_trace()
    red_flag(trace, detail="cancel_order called before get_recent_orders")
    item = resolved_item(
        trace,
        score=0.0,
        explanation="Should confirm which order first.",
        failure_tags=["wrong_order", "no_confirmation"],
    )
    annotation = item.annotations.get()
    # when it is promoted
    example = golden_example_promote(item=item, annotation=annotation, user=curator)
    # then the draft carries the trace's task, trajectory with placeholders, and the review
    assert example.origin == ExampleOrigin.PROMOTED
    assert example.task == trace.task
    assert example.task_type == "order_cancellation"
    assert [s["tool"] for s in example.reference_trajectory] == [
        "get_recent_orders",
        "cancel_order",
    ]
    assert example.reference_trajectory[1]["inputs"]["order_id"] == "<from_step_1_output>"
    assert example.expected_outcome == ""  # the agent failed: its answer is not the reference
    assert example.expected_behavior == "Should confirm which order first."
    assert example.failure_tags == ["no_confirmation", "wrong_order"]
    assert example.red_flags == [
        {
            "text": "Called before its prerequisite: cancel_order called before get_recent_orders",
            "rule": None,
        }
    ]
    assert example.source_trace == trace and example.source_review_item == item
    assert example.created_by == curator


def test_a_passing_resolution_keeps_the_final_answer_as_expected_outcome(curator):
    item = resolved_item(score=1.0)
    example = golden_example_promote(item=item, annotation=item.annotations.get(), user=curator)
    assert example.expected_outcome.startswith("Your order A1042 has been cancelled")


def test_promoting_twice_returns_the_first_example(curator):
    item = resolved_item()
    first = golden_example_promote(item=item, annotation=item.annotations.get(), user=curator)
    second = golden_example_promote_item(item=item, user=curator)
    assert first.pk == second.pk


def test_the_review_signal_promotes_through_the_receiver(curator):
    # given the review queue resolves an item with promote set
    item = resolved_item()
    # when it sends the hand-off signal
    review_item_promoted.send(
        sender=None, item=item, annotation=item.annotations.get(), user=curator
    )
    # then a golden example exists for it
    assert item.goldenexample_set.count() == 1


def test_an_open_item_cannot_be_promoted(curator):
    item = ReviewItemFactory(trace=cancel_order_trace(), status=ReviewStatus.OPEN)
    with pytest.raises(ApplicationError) as caught:
        golden_example_promote_item(item=item, user=curator)
    assert caught.value.field == "item"
