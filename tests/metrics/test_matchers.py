"""Matchers: exact, in-order, any-order, precision/recall and the LLM semantic match."""

import pytest
from evalsite_checks.matchers import (
    efficiency,
    match_any_order,
    match_exact,
    match_in_order,
    match_precision_recall,
    trajectory_match,
)

REFERENCE = ["get_recent_orders", "get_order", "cancel_order"]


def _steps(tools):
    return [{"tool": t, "inputs": {}} for t in tools]


def test_exact_requires_the_same_calls_in_the_same_order():
    assert match_exact(REFERENCE, REFERENCE).matched
    swapped = match_exact(REFERENCE, ["get_order", "get_recent_orders", "cancel_order"])
    assert not swapped.matched
    assert swapped.tool_selection_accuracy == pytest.approx(1 / 3)


def test_exact_penalises_an_extra_call():
    result = match_exact(REFERENCE, [*REFERENCE, "send_email"])
    assert not result.matched
    assert result.tool_selection_accuracy == pytest.approx(3 / 4)


def test_in_order_allows_extra_calls_between_reference_steps():
    # given a trajectory with an extra lookup between the reference steps
    actual = ["get_recent_orders", "get_customer", "get_order", "cancel_order"]
    # when
    result = match_in_order(REFERENCE, actual)
    # then
    assert result.matched
    assert result.pairs == [(0, 0), (1, 2), (2, 3)]
    assert result.precision == pytest.approx(3 / 4)


def test_in_order_fails_when_order_is_broken():
    result = match_in_order(REFERENCE, ["get_recent_orders", "cancel_order", "get_order"])
    assert not result.matched
    assert result.tool_selection_accuracy == pytest.approx(2 / 3)


def test_any_order_accepts_a_permutation_but_not_a_missing_call():
    assert match_any_order(REFERENCE, list(reversed(REFERENCE))).matched
    missing = match_any_order(REFERENCE, ["cancel_order", "get_recent_orders"])
    assert not missing.matched
    assert missing.tool_selection_accuracy == pytest.approx(2 / 3)


def test_skipped_verification_step_fails_every_deterministic_matcher():
    # given the agent cancels without verifying the order first
    actual = ["get_recent_orders", "cancel_order"]
    # when / then
    assert not match_exact(REFERENCE, actual).matched
    assert not match_in_order(REFERENCE, actual).matched
    assert not match_any_order(REFERENCE, actual).matched
    pr = match_precision_recall(REFERENCE, actual)
    assert (pr.precision, pr.recall) == (1.0, pytest.approx(2 / 3))
    assert pr.tool_selection_accuracy == pytest.approx(0.8)  # F1 of 1 and 2/3


def test_precision_recall_counts_repeated_calls_as_a_multiset():
    # given two identical lookups where the reference has one
    result = match_precision_recall(
        ["search_flights", "book_flight"], ["search_flights", "search_flights", "book_flight"]
    )
    assert result.precision == pytest.approx(2 / 3)
    assert result.recall == 1.0
    assert not result.matched


def test_semantic_match_accepts_a_shorter_valid_path():
    # given the task already names the order, so the agent skips the order list
    calls = []

    def judge(reference, actual, task):
        calls.append((reference, actual, task))
        return 1.0, "the order id is in the task; listing orders is unnecessary"

    actual = _steps(["get_order", "cancel_order"])
    # when
    result = trajectory_match(
        "semantic", _steps(REFERENCE), actual, task="Cancel order A1042", path_judge=judge
    )
    # then the deterministic in-order match fails but the judge accepts it
    assert not match_in_order(REFERENCE, ["get_order", "cancel_order"]).matched
    assert result.matched and result.tool_selection_accuracy == 1.0
    assert result.pairs == [(1, 0), (2, 1)]
    assert len(calls) == 1 and calls[0][2] == "Cancel order A1042"


def test_semantic_match_rejects_a_skipped_verification_and_skips_the_judge_on_identical_paths():
    def judge(reference, actual, task):
        return 0.0, "cancelled without checking the order belongs to the customer"

    skipped = trajectory_match(
        "semantic",
        _steps(REFERENCE),
        _steps(["get_recent_orders", "cancel_order"]),
        path_judge=judge,
    )
    assert not skipped.matched and skipped.tool_selection_accuracy == 0.0

    def must_not_be_called(*args):
        raise AssertionError("identical paths need no judge")

    same = trajectory_match(
        "semantic", _steps(REFERENCE), _steps(REFERENCE), path_judge=must_not_be_called
    )
    assert same.matched


def test_the_semantic_matcher_is_given_its_judge_by_the_caller():
    # Metrics call no LLM: the judge comes from judges (eval scoring passes path_judge_llm).
    with pytest.raises(ValueError, match="needs a path judge"):
        trajectory_match("semantic", _steps(REFERENCE), _steps(["cancel_order"]))


def test_unknown_matcher_is_refused():
    with pytest.raises(ValueError, match="unknown matcher"):
        trajectory_match("fuzzy", [], [])


def test_efficiency_counts_extra_calls_against_the_reference():
    assert efficiency(3, 3) == 1.0
    assert efficiency(3, 6) == 0.5
    assert efficiency(3, 2) == 1.0  # a shorter path is not penalised here
    assert efficiency(2, 0) == 0.0
