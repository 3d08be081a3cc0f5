"""State matching: a run is right when it made exactly the expected writes; reads, retries and
the order of independent writes do not decide it. Each test shows the failing run first."""

from evalsite_checks.scoring import trajectory_score
from evalsite_checks.steps import ToolStep, attempt_groups

EFFECTS = {
    "get_reservation": "read",
    "list_reservations": "read",
    "think": "read",
    "calculate": "read",
    "cancel_reservation": "write",
    "update_reservation": "write",
    "send_receipt": "write",
}
TWO_CANCELLATIONS = [
    {"step": 1, "tool": "list_reservations", "inputs": {"user_id": "u-81"}},
    {"step": 2, "tool": "cancel_reservation", "inputs": {"reservation_id": "R-100"}},
    {"step": 3, "tool": "cancel_reservation", "inputs": {"reservation_id": "R-200"}},
]
LISTING = {"reservations": [{"id": "R-100"}, {"id": "R-200"}, {"id": "R-300"}]}


def _call(tool, inputs, output=None, failed=False, span_id=""):
    return ToolStep(tool, inputs, output, failed=failed, span_id=span_id or tool)


def _score(reference, actual):
    return trajectory_score(reference, actual, effects=EFFECTS)


def test_an_extra_write_fails_the_path_and_the_exact_writes_pass():
    cancels = [
        _call("list_reservations", {"user_id": "u-81"}, LISTING),
        _call("cancel_reservation", {"reservation_id": "R-100"}, {"status": "cancelled"}),
        _call("cancel_reservation", {"reservation_id": "R-200"}, {"status": "cancelled"}),
    ]
    # when the agent cancels one reservation too many
    one_too_many = _score(
        TWO_CANCELLATIONS, [*cancels, _call("cancel_reservation", {"reservation_id": "R-300"})]
    )
    # then the path does not match and the reason names the unexpected write
    assert one_too_many.matcher == "state"
    assert not one_too_many.matched
    assert "unexpected write cancel_reservation" in one_too_many.reason
    assert one_too_many.precision < 1.0
    # while exactly the expected writes match
    exact = _score(TWO_CANCELLATIONS, cancels)
    assert exact.matched and exact.tool_selection_accuracy == 1.0


def test_writing_when_the_reference_only_reads_fails():
    lookup_only = [{"step": 1, "tool": "get_reservation", "inputs": {"reservation_id": "R-100"}}]
    look = _call("get_reservation", {"reservation_id": "R-100"}, {"status": "confirmed"})
    # when the agent was only to look, yet cancelled
    wrote = _score(lookup_only, [look, _call("cancel_reservation", {"reservation_id": "R-100"})])
    assert not wrote.matched and "unexpected write" in wrote.reason
    # and a run that only looked matches
    assert _score(lookup_only, [look]).matched


def test_a_missing_write_and_a_wrong_argument_fail():
    listing = _call("list_reservations", {"user_id": "u-81"}, LISTING)
    first = _call("cancel_reservation", {"reservation_id": "R-100"}, {"status": "cancelled"})
    missing = _score(TWO_CANCELLATIONS, [listing, first])
    assert not missing.matched and "missing write cancel_reservation" in missing.reason
    assert missing.recall == 0.5
    wrong = _score(
        TWO_CANCELLATIONS,
        [listing, first, _call("cancel_reservation", {"reservation_id": "R-300"})],
    )
    assert not wrong.matched and wrong.reason == "cancel_reservation written with other arguments"


def test_skipped_and_extra_reads_do_not_cost_a_correct_run():
    # given a run that skips the listing, thinks, and looks one reservation up twice
    actual = [
        _call("think", {"thought": "The user gave both ids."}),
        _call("get_reservation", {"reservation_id": "R-200"}, {"status": "confirmed"}),
        _call("get_reservation", {"reservation_id": "R-200"}, {"status": "confirmed"}),
        _call("cancel_reservation", {"reservation_id": "R-100"}, {"status": "cancelled"}),
        _call("cancel_reservation", {"reservation_id": "R-200"}, {"status": "cancelled"}),
    ]
    score = _score(TWO_CANCELLATIONS, actual)
    # then correctness is untouched; only efficiency counts the extra calls
    assert score.matched
    assert score.tool_selection_accuracy == 1.0
    assert score.parameter_accuracy == 1.0
    assert score.efficiency == 3 / 5
    reads = [s for s in score.steps if s.tool in ("think", "get_reservation")]
    assert all(not s.counted for s in reads)


def test_the_last_attempt_is_scored_and_failed_writes_are_reported_apart():
    # given a write that failed on a bad argument and was retried with the right one
    actual = [
        _call("list_reservations", {"user_id": "u-81"}, LISTING),
        _call("cancel_reservation", {"reservation_id": "r100"}, "Error: unknown id", True, "a1"),
        _call("cancel_reservation", {"reservation_id": "R-100"}, {"status": "ok"}, span_id="a2"),
        _call("cancel_reservation", {"reservation_id": "R-200"}, {"status": "ok"}, span_id="b"),
    ]
    groups = attempt_groups(actual)
    assert [len(g) for g in groups] == [1, 2, 1]
    score = _score(TWO_CANCELLATIONS, actual)
    # then the retry is what counts, and the failed try is listed, not held against it
    assert score.matched and score.parameter_accuracy == 1.0
    assert score.retried_calls == 1
    assert score.failed_writes == [
        {"span_id": "a1", "tool": "cancel_reservation", "inputs": {"reservation_id": "r100"}}
    ]
    scored = {s.span_id: s.reference_step for s in score.steps}
    assert scored == {"list_reservations": 1, "a2": 2, "b": 3}


def test_independent_writes_in_any_order_but_dependent_ones_in_theirs():
    listing = _call("list_reservations", {"user_id": "u-81"}, LISTING)
    second = _call("cancel_reservation", {"reservation_id": "R-200"}, {"status": "ok"})
    first = _call("cancel_reservation", {"reservation_id": "R-100"}, {"status": "ok"})
    # independent cancellations done the other way round still match
    assert _score(TWO_CANCELLATIONS, [listing, second, first]).matched
    # but a receipt that must follow the update, sent before it, does not
    dependent = [
        {"step": 1, "tool": "update_reservation", "inputs": {"reservation_id": "R-1", "seats": 3}},
        {"step": 2, "tool": "send_receipt", "inputs": {"reservation_id": "R-1"}, "after": [1]},
    ]
    update = _call("update_reservation", {"reservation_id": "R-1", "seats": 3}, {"ok": True})
    receipt = _call("send_receipt", {"reservation_id": "R-1"}, {"sent": True})
    early = _score(dependent, [receipt, update])
    assert not early.matched
    assert (
        early.reason == "send_receipt written out of order (it must come after update_reservation)"
    )
    assert _score(dependent, [update, receipt]).matched


def test_a_placeholder_on_another_writes_output_orders_them_too():
    reference = [
        {"step": 1, "tool": "update_reservation", "inputs": {"reservation_id": "R-1"}},
        {"step": 2, "tool": "send_receipt", "inputs": {"change_id": "<from_step_1_output>"}},
    ]
    receipt = _call("send_receipt", {"change_id": "CH-9"}, {"sent": True})
    update = _call("update_reservation", {"reservation_id": "R-1"}, {"change_id": "CH-9"})
    assert not _score(reference, [receipt, update]).matched
    assert _score(reference, [update, receipt]).matched


def test_a_value_only_a_judge_could_compare_does_not_fail_the_path_unjudged():
    reference = [
        {
            "step": 1,
            "tool": "cancel_reservation",
            "inputs": {"reservation_id": "R-100", "note": "guest asked by phone"},
        }
    ]
    worded = {"reservation_id": "R-100", "note": "the guest called to ask"}
    # a wrong id fails it
    wrong = _score(reference, [_call("cancel_reservation", {**worded, "reservation_id": "R-1"})])
    assert not wrong.matched
    # while other wording, with no judge to ask, scores 0.5 but keeps the path
    unjudged = _score(reference, [_call("cancel_reservation", worded)])
    assert unjudged.matched and unjudged.parameter_accuracy == 0.75
    # and an unreadable judge reply leaves the trial to a person
    unread = trajectory_score(
        reference,
        [_call("cancel_reservation", worded)],
        effects=EFFECTS,
        parameter_judge=lambda name, expected, actual, task: None,
    )
    assert unread.matched and unread.judge_unreadable
