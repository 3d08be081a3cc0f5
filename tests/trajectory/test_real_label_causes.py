"""The causes that made trajectory checks disagree with real labels, one test each.

Each test shows the run the check got wrong before, then the run it must still get right."""

import pytest

from judges.trajectory.parameters import step_parameter_scores, values_equivalent
from judges.trajectory.scoring import trajectory_score
from judges.trajectory.steps import ToolStep

WEATHER = [{"step": 1, "tool": "get_weather", "inputs": {"city": "Paris"}}]


def _call(tool, inputs, output=None, failed=False):
    return ToolStep(tool, inputs, output if output is not None else {"ok": 1}, failed=failed)


# (a) the default matcher fails a read-only reference that was skipped or mis-called


def test_the_default_matcher_fails_a_read_only_reference_that_was_never_called():
    nothing = trajectory_score(WEATHER, [])
    assert not nothing.matched
    assert "missing" in nothing.reason


def test_the_default_matcher_fails_a_read_only_reference_called_with_another_value():
    rome = trajectory_score(WEATHER, [_call("get_weather", {"city": "Rome"})])
    assert not rome.matched
    assert rome.parameter_accuracy == 0.0


def test_the_default_matcher_leaves_extra_lookups_and_scratchpads_free():
    run = [
        _call("think", {"thought": "Look up the weather."}),
        _call("get_weather", {"city": "paris"}, {"temp": 18}),
        _call("get_time", {"city": "Paris"}),
    ]
    score = trajectory_score(WEATHER, run)
    assert score.matched
    assert score.parameter_accuracy == 1.0


def test_a_read_a_later_write_takes_its_output_from_counts_under_the_default():
    reference = [
        {"step": 1, "tool": "find_order", "inputs": {"number": "A-7"}},
        {"step": 2, "tool": "cancel_order", "inputs": {"order_id": "<from_step_1_output>"}},
    ]
    output = {"order_id": "o-91"}
    wrong_lookup = [
        _call("find_order", {"number": "A-8"}, output),
        _call("cancel_order", {"order_id": "o-91"}),
    ]
    assert not trajectory_score(reference, wrong_lookup).matched
    right = [
        _call("find_order", {"number": "A-7"}, output),
        _call("cancel_order", {"order_id": "o-91"}),
    ]
    assert trajectory_score(reference, right).matched


def test_an_optional_reference_read_may_be_skipped():
    reference = [
        {"step": 1, "tool": "get_customer", "inputs": {"customer_id": "c-1"}, "optional": True},
        {"step": 2, "tool": "get_weather", "inputs": {"city": "Paris"}},
    ]
    assert trajectory_score(reference, [_call("get_weather", {"city": "Paris"})]).matched


# (b) repeated calls of one tool are paired by their arguments, not their position

AREAS = [
    {"step": 1, "tool": "area", "inputs": {"side": "length"}},
    {"step": 2, "tool": "area", "inputs": {"side": "width"}},
]
SWAPPED = [_call("area", {"side": "width"}), _call("area", {"side": "length"})]


@pytest.mark.parametrize("matcher", ["any_order", "precision_recall", "auto", "state"])
def test_repeated_calls_in_another_order_pair_by_arguments(matcher):
    score = trajectory_score(AREAS, SWAPPED, matcher=matcher)
    assert score.matched
    assert score.parameter_accuracy == 1.0


def test_in_order_pairs_a_repeated_tool_with_its_best_call():
    reference = [{"step": 1, "tool": "area", "inputs": {"side": "length"}}]
    score = trajectory_score(reference, SWAPPED, matcher="in_order")
    assert score.parameter_accuracy == 1.0


# (c) reference parameters that may be absent, have alternatives, or be numbers of another type


def test_an_optional_parameter_may_be_left_out():
    step = {"tool": "get_weather", "inputs": {"city": "Paris", "unit": {"optional": True}}}
    scores = step_parameter_scores(step, {"city": "Paris"})
    assert [s.score for s in scores] == [1.0, 1.0]


def test_an_optional_parameter_with_values_still_checks_a_given_value():
    step = {"tool": "get_weather", "inputs": {"unit": {"optional": True, "any_of": ["celsius"]}}}
    assert step_parameter_scores(step, {"unit": "kelvin"})[0].score == 0.0
    assert step_parameter_scores(step, {"unit": "Celsius"})[0].score == 1.0


def test_any_accepted_alternative_is_right():
    step = {"tool": "get_weather", "inputs": {"city": {"any_of": ["San Francisco", "SF"]}}}
    assert step_parameter_scores(step, {"city": "SF"})[0].score == 1.0
    assert step_parameter_scores(step, {"city": "LA"})[0].score == 0.0


@pytest.mark.parametrize("matcher", ["auto", "any_order", "in_order", "precision_recall"])
def test_every_matcher_that_checks_arguments_accepts_optional_and_alternatives(matcher):
    reference = [
        {
            "step": 1,
            "tool": "book_table",
            "inputs": {
                "city": {"any_of": ["San Francisco", "SF"]},
                "seats": 5,
                "note": {"optional": True},
            },
        }
    ]
    run = [_call("book_table", {"city": "SF", "seats": 5.0})]
    score = trajectory_score(reference, run, matcher=matcher)
    assert score.matched and score.parameter_accuracy == 1.0


def test_numbers_are_equal_across_int_and_float():
    assert values_equivalent(5, 5.0) is True
    assert values_equivalent([5], [5.0]) is True
    assert values_equivalent({"n": 2}, {"n": 2.0}) is True
