"""Outcome facts: any length, numbers by value, found anywhere the agent spoke."""

import pytest

from golden.evals.outcome import expected_facts, facts_found, outcome_score
from tests.factories import SpanFactory, TraceFactory
from traces.models import SpanKind


def test_a_one_character_answer_is_a_fact():
    assert expected_facts("The answer is 4.") == ["4"]
    assert facts_found(["4"], ["There are 5 seats."]) == 0
    assert facts_found(["4"], ["There are 4 seats."]) == 1


@pytest.mark.parametrize(
    ("expected", "said"),
    [("$1,200", "1200.00 dollars"), ("49.90", "a refund of 49.9"), ("7", "seven is 7.0")],
)
def test_numbers_are_compared_as_numbers(expected, said):
    assert facts_found(expected_facts(expected), [said]) == 1


def test_an_id_must_match_as_written_not_by_digits():
    assert facts_found(["a1043"], ["Order A1042 is cancelled."]) == 0
    assert facts_found(["a1042"], ["order a1042 is cancelled"]) == 1


@pytest.mark.django_db
def test_facts_said_before_the_last_turn_count_but_tool_arguments_do_not():
    # given an agent that stated the refund, then closed with pleasantries
    trace = TraceFactory(final_answer="You're welcome, have a nice day!")
    content = {"expected_outcome": "Refund R-5521 of 49.90 issued."}
    call = SpanFactory(
        trace=trace,
        kind=SpanKind.LLM,
        position=1,
        input=[{"role": "user", "parts": [{"type": "text", "content": "Refund please."}]}],
        output=[
            {
                "role": "assistant",
                "parts": [
                    {"type": "tool_call", "name": "refund", "arguments": {"refund_id": "R-5521"}}
                ],
            }
        ],
    )
    # when only the tool call carries the refund id, nothing was said to the customer
    assert outcome_score(trace, content, [call]).score == 0.0
    # and once an assistant turn says it, before the last one, both facts are found
    said = SpanFactory(
        trace=trace,
        kind=SpanKind.LLM,
        position=2,
        input={"messages": [{"role": "user", "content": "Did it work?"}]},
        output={"role": "assistant", "content": "Refund R-5521 of 49.9 is on its way."},
    )
    outcome = outcome_score(trace, content, [call, said])
    assert outcome.score == 1.0 and outcome.source == "expected_facts"
