import pytest
from evalsite_checks.rules import red_flag_rule_errors

from golden.example_schema import ExampleInvalid, example_data_clean
from golden.red_flag_rules import red_flags_errors
from golden.reference_trajectory import reference_trajectory_errors
from metrics.models import RedFlag
from tests.golden.builders import cancel_reference

GOOD_STEPS = cancel_reference("cancelled")
KINDS = RedFlag.Kind.values


def test_a_well_formed_trajectory_has_no_errors():
    assert reference_trajectory_errors(GOOD_STEPS) == {}
    assert reference_trajectory_errors([]) == {}


@pytest.mark.parametrize(
    ("steps", "path"),
    [
        ({"step": 1}, "reference_trajectory"),
        ([{"step": 1, "tool": "x", "inputs": {}}], "reference_trajectory[0]"),
        ([{**GOOD_STEPS[0], "note": "x"}], "reference_trajectory[0]"),
        ([{**GOOD_STEPS[0], "step": 2}], "reference_trajectory[0].step"),
        ([{**GOOD_STEPS[0], "tool": " "}], "reference_trajectory[0].tool"),
        ([{**GOOD_STEPS[0], "inputs": ["a"]}], "reference_trajectory[0].inputs"),
        (
            [{**GOOD_STEPS[0], "acceptable_output_fields": "orders"}],
            "reference_trajectory[0].acceptable_output_fields",
        ),
        (
            [{**GOOD_STEPS[0], "inputs": {"id": "<from_step_1_output>"}}],
            "reference_trajectory[0].inputs.id",
        ),
        (
            [{**GOOD_STEPS[0], "inputs": {"id": "<from_somewhere>"}}],
            "reference_trajectory[0].inputs.id",
        ),
    ],
)
def test_each_broken_rule_is_reported_at_its_path(steps, path):
    assert path in reference_trajectory_errors(steps)


def test_the_documented_rule_shapes_validate():
    assert (
        red_flag_rule_errors(
            {"rule": "called_before", "tool": "cancel_order", "prerequisite": "get_recent_orders"},
            KINDS,
        )
        == []
    )
    assert (
        red_flag_rule_errors(
            {
                "rule": "param_from_output",
                "tool": "cancel_order",
                "param": "order_id",
                "source_tool": "get_recent_orders",
            },
            KINDS,
        )
        == []
    )
    assert red_flag_rule_errors({"rule": "never_called", "tool": "issue_refund"}, KINDS) == []
    assert (
        red_flag_rule_errors({"rule": "max_calls", "tool": "search_flights", "limit": 3}, KINDS)
        == []
    )


def test_broken_rules_say_what_is_wrong():
    assert "unknown rule" in red_flag_rule_errors({"rule": "sometimes"}, KINDS)[0]
    assert red_flag_rule_errors({"rule": "called_before", "tool": "cancel_order"}, KINDS) == [
        "'prerequisite' must be a non-empty string"
    ]
    assert red_flag_rule_errors({"rule": "max_calls", "tool": "t", "limit": 0}, KINDS) == [
        "'limit' must be at least 1"
    ]
    errors = red_flags_errors([{"text": "", "rule": {"rule": "never_called"}}])
    assert set(errors) == {"red_flags[0].text", "red_flags[0].rule"}


def test_example_data_fills_defaults_and_rejects_unknown_fields():
    cleaned = example_data_clean({"task": "  Cancel order A1 ", "failure_tags": ["b", "a", "a"]})
    assert cleaned["task"] == "Cancel order A1"
    assert cleaned["failure_tags"] == ["a", "b"]
    assert cleaned["reference_trajectory"] == []
    with pytest.raises(ExampleInvalid) as caught:
        example_data_clean({"task": "", "colour": "red", "adversarial_kind": "spicy"})
    assert set(caught.value.errors) == {"task", "colour", "adversarial_kind"}
