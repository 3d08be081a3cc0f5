import pytest

from core.errors import ApplicationError
from golden.models import ExampleOrigin, GoldenExample
from golden.selectors import promotable_review_items
from golden.services import (
    golden_example_promote,
    golden_example_promote_draft,
    golden_example_promote_item,
)
from metrics.models import RedFlag
from reviews.models import ReviewStatus
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


def test_a_red_flagged_step_is_marked_and_its_values_not_copied_as_expected(curator):
    # given the agent cancelled an order id it never looked up, and the check flagged it
    trace = cancel_order_trace()
    cancel = trace.spans.get(name="cancel_order")
    cancel.input = {"order_id": "Z-9999", "customer_id": "C-77"}
    cancel.save(update_fields=["input"])
    RedFlag.objects.create(
        trace=trace,
        span=cancel,
        kind=RedFlag.Kind.HALLUCINATED_PARAMETER,
        detail="order_id Z-9999 is nowhere in the task or earlier outputs",
    )
    item = resolved_item(trace, score=0.0)
    # when the promotion is drafted
    draft, flagged = golden_example_promote_draft(item=item, annotation=item.annotations.get())
    # then the flagged step is named, its made-up value is blank, its sourced value kept
    assert [(s["step"], s["tool"]) for s in flagged] == [(2, "cancel_order")]
    assert "Z-9999" in flagged[0]["flags"][0]["text"]
    assert draft["reference_trajectory"][1]["inputs"] == {
        "order_id": None,
        "customer_id": "<from_context>",
    }
    assert draft["reference_trajectory"][0]["inputs"]["customer_id"] == "<from_context>"
    # and drafting wrote nothing
    assert not GoldenExample.objects.exists()


def test_an_annotators_suggestion_writes_no_example(curator):
    item = resolved_item()
    annotation = item.annotations.get()
    annotation.promoted = True
    annotation.save(update_fields=["promoted"])
    assert not GoldenExample.objects.exists()
    assert list(promotable_review_items())[0].suggested is True


def test_an_open_item_cannot_be_promoted(curator):
    item = ReviewItemFactory(trace=cancel_order_trace(), status=ReviewStatus.OPEN)
    with pytest.raises(ApplicationError) as caught:
        golden_example_promote_item(item=item, user=curator)
    assert caught.value.field == "item"
