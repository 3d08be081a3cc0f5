import pytest

from golden.example_schema import ExampleInvalid
from golden.models import AdversarialKind, ExampleOrigin
from golden.services import NearDuplicateFound, golden_example_create, golden_example_update
from reviews.models import AuditEvent
from tests.factories import RubricFactory
from tests.golden.builders import example, reference_step

AMBIGUOUS = {
    "task": "Cancel my order.",
    "task_type": "order_cancellation",
    "adversarial_kind": AdversarialKind.AMBIGUOUS_PARAMETERS,
    "expected_behavior": "The customer has two open orders: ask which one before cancelling.",
    "reference_trajectory": [
        reference_step(1, "get_recent_orders", {"customer_id": "<from_context>"}, ["orders"]),
    ],
    "red_flags": [
        {
            "text": "Cancels an order without asking which one",
            "rule": {"rule": "never_called", "tool": "cancel_order"},
        },
    ],
    "context": {"customer_id": "C-12"},
}


def test_a_handwritten_adversarial_example_is_saved_with_its_rules(curator):
    # when a curator writes an ambiguous-parameter example
    created = golden_example_create(data=AMBIGUOUS, user=curator)
    # then it is stored as written, by hand, and audited
    created.refresh_from_db()
    assert created.origin == ExampleOrigin.HANDWRITTEN
    assert created.adversarial_kind == "ambiguous_parameters"
    assert created.red_flags[0]["rule"] == {"rule": "never_called", "tool": "cancel_order"}
    assert AuditEvent.objects.filter(
        action="golden_example_create", object_id=str(created.pk)
    ).exists()


@pytest.mark.parametrize(
    ("kind", "steps"),
    [
        (
            AdversarialKind.EMPTY_TOOL_RESULT,
            [reference_step(1, "search_flights", {"origin": "<from_context>"}, ["flights"])],
        ),
        (
            AdversarialKind.CONTRADICTORY_OUTPUTS,
            [
                reference_step(1, "get_order", {"order_id": "<from_context>"}, ["status"]),
                reference_step(2, "get_shipment", {"order_id": "<from_context>"}, ["status"]),
            ],
        ),
        (
            AdversarialKind.TOOL_ERROR,
            [{"step": 1, "tool": "run_tests", "inputs": {}, "acceptable_output_fields": []}],
        ),
        (
            AdversarialKind.TOOL_TIMEOUT,
            [reference_step(1, "book_hotel", {"hotel_id": "<from_context>"}, [])],
        ),
    ],
)
def test_every_adversarial_kind_can_be_written(curator, kind, steps):
    created = golden_example_create(
        data={
            "task": f"Adversarial case {kind}",
            "task_type": kind,
            "adversarial_kind": kind,
            "reference_trajectory": steps,
        },
        user=curator,
    )
    assert created.adversarial_kind == kind


def test_an_invalid_trajectory_is_refused_with_the_field(curator):
    data = {
        **AMBIGUOUS,
        "reference_trajectory": [
            reference_step(1, "get_recent_orders", {"id": "<from_step_3_output>"}, [])
        ],
    }
    with pytest.raises(ExampleInvalid) as caught:
        golden_example_create(data=data, user=curator)
    assert "reference_trajectory[0].inputs.id" in caught.value.errors


def test_an_unknown_rubric_is_refused(curator):
    with pytest.raises(ExampleInvalid) as caught:
        golden_example_create(data={**AMBIGUOUS, "outcome_rubric": "Nope"}, user=curator)
    assert "outcome_rubric" in caught.value.errors


def test_a_known_rubric_is_linked(curator):
    rubric = RubricFactory(name="Outcome 1-5")
    created = golden_example_create(
        data={**AMBIGUOUS, "outcome_rubric": "Outcome 1-5"}, user=curator
    )
    assert created.outcome_rubric == rubric


def test_a_near_duplicate_of_the_same_task_type_is_pointed_out(curator):
    # given an example already in the dataset
    existing = example(
        task="Please cancel my most recent order, placed by mistake!",
        task_type="order_cancellation",
    )
    # when a nearly identical one is saved
    with pytest.raises(NearDuplicateFound) as caught:
        golden_example_create(
            data={
                "task": "please cancel my most recent order placed by mistake",
                "task_type": "order_cancellation",
            },
            user=curator,
        )
    # then the existing one is named, and confirming saves anyway
    assert caught.value.matches[0].example.pk == existing.pk
    assert caught.value.matches[0].ratio >= 0.85
    golden_example_create(
        data={
            "task": "please cancel my most recent order placed by mistake",
            "task_type": "order_cancellation",
        },
        user=curator,
        allow_duplicate=True,
    )


def test_the_same_words_under_another_task_type_are_not_duplicates(curator):
    example(task="Cancel my most recent order", task_type="order_cancellation")
    created = golden_example_create(
        data={"task": "Cancel my most recent order", "task_type": "subscription"}, user=curator
    )
    assert created.pk


def test_updating_keeps_key_and_origin_and_ignores_itself_as_duplicate(curator):
    created = golden_example_create(data=AMBIGUOUS, user=curator)
    updated = golden_example_update(
        example=created, data={"expected_behavior": "Ask which order."}, user=curator
    )
    assert updated.key == created.key
    assert updated.expected_behavior == "Ask which order."
    assert updated.reference_trajectory == AMBIGUOUS["reference_trajectory"]
    assert AuditEvent.objects.filter(action="golden_example_update").count() == 1


def test_renaming_a_task_onto_another_is_pointed_out_but_other_edits_are_not(curator):
    example(task="Cancel my most recent order", task_type="order_cancellation")
    other = example(task="Refund my broken kettle", task_type="order_cancellation")
    golden_example_update(example=other, data={"expected_behavior": "Refund."}, user=curator)
    with pytest.raises(NearDuplicateFound):
        golden_example_update(
            example=other, data={"task": "Cancel my most recent order!"}, user=curator
        )
