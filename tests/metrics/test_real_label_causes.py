"""The causes that made trajectory checks disagree with real labels, one test each.

Each test shows the run the check got wrong before, then the run it must still get right."""

import pytest
from evalsite_checks.parameters import step_parameter_scores, values_equivalent
from evalsite_checks.scoring import trajectory_score
from evalsite_checks.steps import ToolStep

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


def test_accepted_values_are_a_closed_list_no_judge_widens():
    step = {"tool": "get_weather", "inputs": {"city": {"any_of": ["New York City", "NYC"]}}}
    asked = []
    scores = step_parameter_scores(
        step, {"city": "Rio de Janeiro"}, judge=lambda *a: asked.append(a) or 1.0
    )
    assert scores[0].score == 0.0 and asked == []


def test_numbers_are_equal_across_int_and_float():
    assert values_equivalent(5, 5.0) is True
    assert values_equivalent([5], [5.0]) is True
    assert values_equivalent({"n": 2}, {"n": 2.0}) is True


# (d) values derived from what the agent saw are grounded; failures flag only what they cost


def _flags(trace, kind):
    from metrics.redflags import red_flags_detect

    return [hit.span_id for hit in red_flags_detect(trace) if hit.kind == kind]


def _tool_span(trace, position, name, inputs, output=None, **kwargs):
    from tests.factories import ToolSpanFactory

    return ToolSpanFactory(
        trace=trace, position=position, name=name, input=inputs, output=output, **kwargs
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("task", "output", "inputs", "flagged"),
    [
        # a date moved by what the user said: the next day, a week later
        (
            "Move booking B-12 to the next day.",
            {"date": "2024-05-18"},
            {"date": "2024-05-19"},
            False,
        ),
        ("Push B-12 back by two weeks.", {"date": "2024-05-18"}, {"date": "2024-06-01"}, False),
        # a date nobody said and no stated shift reaches
        (
            "Move booking B-12 to the next day.",
            {"date": "2024-05-18"},
            {"date": "2024-05-23"},
            True,
        ),
        # a sum and a difference of amounts seen, and a unit change
        ("Refund B-12: item 12.50 plus shipping 7.25.", {"ok": 1}, {"amount": "19.75"}, False),
        ("Refund B-12, 40.00 paid, 12.50 kept back.", {"ok": 1}, {"amount": "27.50"}, False),
        ("Book B-12 for a 2.5 km route.", {"ok": 1}, {"distance_m": "2500m"}, False),
        # numbers and dates the user gave in words
        ("Book B-12 for twenty-four guests.", {"ok": 1}, {"guests": "24 guests"}, False),
        ("Book B-12 on the fifth of June 2024.", {"ok": 1}, {"date": "2024-06-05"}, False),
        # an id is copied, never computed: a sum of seen numbers is still made up
        ("Refund orders 5100 and 77 of booking B-12.", {"ok": 1}, {"order_id": "5177"}, True),
    ],
)
def test_values_derived_from_what_the_agent_saw_are_not_made_up(task, output, inputs, flagged):
    from tests.factories import TraceFactory

    trace = TraceFactory(task=task, context={}, final_answer="Done.")
    _tool_span(trace, 1, "get_booking", {"booking_id": "B-12"}, output)
    call = _tool_span(trace, 2, "update_booking", {"booking_id": "B-12", **inputs}, {"ok": 1})
    assert _flags(trace, "hallucinated_parameter") == ([call.span_id] if flagged else [])


@pytest.mark.django_db
def test_confident_after_failure_fires_only_on_what_the_answer_claims_the_failed_call_did():
    from tests.factories import TraceFactory
    from traces.models import SpanStatus

    def run(answer, recovery=None):
        trace = TraceFactory(task="Where is order O-5003?", context={}, final_answer=answer)
        _tool_span(
            trace, 1, "get_order", {"order_id": "O-5003"}, "Error: 503", status=SpanStatus.ERROR
        )
        if recovery:
            _tool_span(trace, 2, recovery, {"query": "O-5003"}, [{"order_id": "O-5003"}])
        return trace

    # an error the agent recovered from with another lookup of the same order
    assert (
        _flags(run("O-5003 shipped on Monday.", "search_orders"), "confident_after_failure") == []
    )
    # a failed call whose result the answer does not claim
    survey = TraceFactory(task="Cancel O-5003.", context={}, final_answer="O-5003 is cancelled.")
    _tool_span(survey, 1, "cancel_order", {"order_id": "O-5003"}, {"status": "cancelled"})
    _tool_span(
        survey, 2, "send_survey", {"email": "ana@example.com"}, "Error", status=SpanStatus.ERROR
    )
    assert _flags(survey, "confident_after_failure") == []
    # while an answer that states what the failed call never returned is flagged
    assert len(_flags(run("O-5003 shipped on Monday."), "confident_after_failure")) == 1


@pytest.mark.django_db
def test_stopping_before_the_asked_for_write_without_saying_so_is_a_premature_stop():
    from tests.factories import TraceFactory

    tools = {"available_tools": [{"name": "get_order"}, {"name": "cancel_order"}]}

    def run(answer, cancel):
        trace = TraceFactory(
            task="Please cancel my order O-5003.", context=tools, final_answer=answer
        )
        _tool_span(trace, 1, "get_order", {"order_id": "O-5003"}, {"status": "pending"})
        if cancel:
            _tool_span(trace, 2, "cancel_order", {"order_id": "O-5003"}, {"status": "cancelled"})
        return trace

    assert len(_flags(run("Your order O-5003 is all sorted.", cancel=False), "premature_stop")) == 1
    assert _flags(run("Your order O-5003 is cancelled.", cancel=True), "premature_stop") == []
    # an agent that says it could not finish, or asks before acting, has not stopped silently
    assert _flags(run("Sorry, I couldn't cancel O-5003.", cancel=False), "premature_stop") == []
    assert (
        _flags(run("O-5003 is pending: shall I cancel it?", cancel=False), "premature_stop") == []
    )


def test_a_reference_write_missing_from_a_run_whose_answer_claims_success_is_a_premature_stop():
    from metrics.premature_stop import reference_premature_stop

    reference = [
        {"step": 1, "tool": "get_order", "inputs": {"order_id": "O-5003"}},
        {"step": 2, "tool": "cancel_order", "inputs": {"order_id": "O-5003"}},
    ]
    looked = [ToolStep("get_order", {"order_id": "O-5003"}, {"status": "pending"})]
    hits = reference_premature_stop(reference, looked, "All sorted!", None)
    assert [h.kind for h in hits] == ["premature_stop"]
    assert reference_premature_stop(reference, looked, "I could not cancel it.", None) == []
    done = [*looked, ToolStep("cancel_order", {"order_id": "O-5003"}, {"ok": True})]
    assert reference_premature_stop(reference, done, "All sorted!", None) == []


@pytest.mark.django_db
def test_an_id_only_the_final_answer_names_is_still_made_up():
    from tests.factories import SpanFactory, TraceFactory
    from traces.models import SpanKind

    answer = "Booked: reservation R-9001 is yours."
    trace = TraceFactory(task="Book me a table.", context={}, final_answer=answer)
    root = SpanFactory(trace=trace, kind=SpanKind.AGENT, position=0, input="Book", output=answer)
    trace.root_span_id = root.span_id
    call = _tool_span(trace, 1, "update_booking", {"booking_id": "R-9001"}, {"ok": 1})
    assert _flags(trace, "hallucinated_parameter") == [call.span_id]


def test_the_semantic_matcher_scores_a_repeated_tool_by_its_best_call():
    reference = [{"step": 1, "tool": "area", "inputs": {"side": "length"}}]
    score = trajectory_score(
        reference, SWAPPED, matcher="semantic", path_judge=lambda *a: (1.0, "same job")
    )
    assert score.parameter_accuracy == 1.0
