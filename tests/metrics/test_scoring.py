"""Scoring a whole trajectory: alignment, placeholders against earlier outputs, per-step scores."""

import pytest
from evalsite_checks.scoring import trajectory_score
from evalsite_checks.steps import ToolStep

from tests.golden.builders import cancel_reference

REFERENCE = cancel_reference("status")
CONTEXT = {"customer_id": "C-77"}
ORDERS = {"orders": [{"order_id": "A1042", "total": "49.90"}]}


def _step(tool, inputs, output, span_id, component=""):
    return ToolStep(
        tool=tool,
        inputs=inputs,
        output=output,
        span_id=span_id,
        component=component or f"tool:{tool}",
    )


def test_faithful_trajectory_scores_full_marks():
    actual = [
        _step("get_recent_orders", {"customer_id": "C-77"}, ORDERS, "s1"),
        _step("cancel_order", {"order_id": "A1042"}, {"status": "cancelled"}, "s2"),
    ]
    score = trajectory_score(REFERENCE, actual, context=CONTEXT)
    assert score.matched
    assert (score.tool_selection_accuracy, score.parameter_accuracy, score.efficiency) == (
        1.0,
        1.0,
        1.0,
    )


def test_hallucinated_order_id_lowers_parameter_accuracy_not_tool_selection():
    # given the agent lists the orders, then cancels an id that is not among them
    actual = [
        _step("get_recent_orders", {"customer_id": "C-77"}, ORDERS, "s1"),
        _step("cancel_order", {"order_id": "A1049"}, {"status": "cancelled"}, "s2"),
    ]
    # when
    in_order = trajectory_score(REFERENCE, actual, context=CONTEXT, matcher="in_order")
    state = trajectory_score(REFERENCE, actual, context=CONTEXT)
    # then both lookups and writes count in order; the default counts the write and the
    # lookup the write takes its id from
    assert in_order.tool_selection_accuracy == 1.0
    assert in_order.parameter_accuracy == pytest.approx(0.5)
    assert state.matcher == "state" and not state.matched
    assert state.tool_selection_accuracy == 1.0 and state.parameter_accuracy == 0.5
    writes_only = trajectory_score(REFERENCE, actual, context=CONTEXT, matcher="state")
    assert writes_only.parameter_accuracy == 0.0
    assert [s.parameter_accuracy for s in in_order.steps] == [1.0, 0.0]
    assert in_order.steps[1].span_id == "s2" and in_order.steps[1].reference_step == 2


def test_extra_call_is_unaligned_and_lowers_efficiency():
    actual = [
        _step("get_recent_orders", {"customer_id": "C-77"}, ORDERS, "s1"),
        _step("get_recent_orders", {"customer_id": "C-77"}, ORDERS, "s2"),
        _step("cancel_order", {"order_id": "A1042"}, {"status": "cancelled"}, "s3"),
    ]
    score = trajectory_score(REFERENCE, actual, context=CONTEXT)
    assert score.matched and score.efficiency == pytest.approx(2 / 3)
    assert [s.tool_correct for s in score.steps] == [True, False, True]


def test_nothing_aligned_means_zero_parameter_accuracy():
    actual = [_step("search_flights", {"origin": "LHR"}, {"flights": []}, "s1")]
    score = trajectory_score(REFERENCE, actual, context=CONTEXT)
    assert score.tool_selection_accuracy == 0.0 and score.parameter_accuracy == 0.0
