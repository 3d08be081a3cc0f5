"""Red flags that fire on what went wrong and not on what a correct agent does.

Each test shows the run that should be flagged first, then the correct one."""

import pytest

from metrics.redflags import red_flags_detect
from tests.factories import SpanFactory, ToolSpanFactory, TraceFactory
from traces.models import SpanKind, SpanStatus

pytestmark = pytest.mark.django_db


def _llm(trace, position, messages, output="", **kwargs):
    return SpanFactory(
        trace=trace, kind=SpanKind.LLM, position=position, input=messages, output=output, **kwargs
    )


def _tool(trace, position, name, inputs, output=None, **kwargs):
    return ToolSpanFactory(
        trace=trace, position=position, name=name, input=inputs, output=output, **kwargs
    )


def _flagged(trace, kind):
    return [hit.span_id for hit in red_flags_detect(trace) if hit.kind == kind]


def _user(text):
    # The GenAI conventions' message form, as OTLP instrumentations send it.
    return {"role": "user", "parts": [{"type": "text", "content": text}]}


def test_an_id_given_in_a_later_user_turn_is_not_made_up():
    # given the agent asked for the e-mail and the customer answered in a second turn
    trace = TraceFactory(task="Cancel my headphones order.", context={}, final_answer="Done.")
    first = [_user("Cancel my headphones order.")]
    _llm(trace, 1, first, "Which e-mail is your account under?")
    guessed = _tool(trace, 2, "find_customer", {"email": "iris.rossi@example.com"}, {"id": 1})
    # then the e-mail nobody gave is flagged
    assert _flagged(trace, "hallucinated_parameter") == [guessed.span_id]
    # and when the customer did give it in the later turn, nothing is
    answered = TraceFactory(task="Cancel my headphones order.", context={}, final_answer="Done.")
    _llm(answered, 1, first, "Which e-mail is your account under?")
    _llm(answered, 2, [*first, _user("Sure, it's iris.rossi@example.com.")], "Thanks.")
    _tool(answered, 3, "find_customer", {"email": "iris.rossi@example.com"}, {"id": 1})
    assert _flagged(answered, "hallucinated_parameter") == []


@pytest.mark.parametrize("where", ["llm_input", "span_attribute"])
def test_a_code_from_the_system_prompt_is_not_made_up(where):
    system = "Damaged items are refunded with reason code DMG-01."
    trace = TraceFactory(task="My kettle O-5003 arrived broken.", context={}, final_answer="ok")
    refund = {"order_id": "O-5003", "reason_code": "DMG-01"}
    # given a run whose system prompt the check cannot see, the code looks made up
    bare = TraceFactory(task="My kettle O-5003 arrived broken.", context={}, final_answer="ok")
    flagged = _tool(bare, 1, "refund_order", refund, {"status": "refunded"})
    assert _flagged(bare, "hallucinated_parameter") == [flagged.span_id]
    # when the system prompt is in the model call's input or on its span
    if where == "llm_input":
        _llm(trace, 1, {"system": system, "messages": [{"role": "user", "content": "Refund"}]})
    else:
        _llm(trace, 1, [_user("Refund")], attributes={"gen_ai.system_instructions": system})
    _tool(trace, 2, "refund_order", refund, {"status": "refunded"})
    assert _flagged(trace, "hallucinated_parameter") == []


@pytest.mark.parametrize(
    ("said", "passed", "flagged"),
    [
        ("deliver it on July 19", "19/7/2026", False),
        ("deliver it on the 19th of July", "2026-07-19", False),
        ("deliver it on 2026-07-19", "07/19/2026", False),
        ("deliver it on July 19", "20/7/2026", True),
        ("account number 12,000 please", "12000.0", False),
        ("account number 12,000 please", "12001", True),
    ],
)
def test_dates_and_numbers_are_compared_however_they_are_written(said, passed, flagged):
    trace = TraceFactory(task=f"Order O-5003: {said}.", context={}, final_answer="Booked.")
    key = "date" if "/" in passed or "-" in passed else "account_number"
    span = _tool(trace, 1, "schedule_delivery", {"order_id": "O-5003", key: passed}, {"ok": 1})
    assert _flagged(trace, "hallucinated_parameter") == ([span.span_id] if flagged else [])


TOOLS = [
    {"name": "search_orders", "description": "Orders matching a query.", "returns": "orders"},
    {"name": "think", "description": "A scratchpad for the agent's notes."},
]


def test_an_empty_result_fails_only_a_tool_that_promises_one():
    answer = "Your order O-5003 is on its way."
    # given a search that promises results and returned none, then a confident answer
    searched = TraceFactory(task="Where is O-5003?", context={"available_tools": TOOLS})
    searched.final_answer = answer
    empty = _tool(searched, 1, "search_orders", {"query": "O-5003"}, [])
    assert _flagged(searched, "confident_after_failure") == [empty.span_id]
    # and a lookup with no definition, judged by its name, is the same
    unknown = TraceFactory(task="Where is O-5003?", context={}, final_answer=answer)
    lookup = _tool(unknown, 1, "get_order", {"order_id": "O-5003"}, None)
    assert _flagged(unknown, "confident_after_failure") == [lookup.span_id]
    # while a scratchpad returns nothing by design, declared or not
    for context in ({"available_tools": TOOLS}, {}):
        thought = TraceFactory(task="Where is O-5003?", context=context, final_answer=answer)
        _tool(thought, 1, "think", {"thought": "Check the order first."}, "")
        _tool(thought, 2, "search_orders", {"query": "O-5003"}, [{"order_id": "O-5003"}])
        assert _flagged(thought, "confident_after_failure") == []


def test_a_retry_after_a_failure_is_not_a_loop_but_failing_again_and_again_is():
    args = {"order_id": "O-5003"}
    stuck = TraceFactory(task="Where is O-5003?", final_answer="Sorry, the service is down.")
    failures = [
        _tool(stuck, i, "get_order", args, "Error: 503", status=SpanStatus.ERROR) for i in (1, 2, 3)
    ]
    assert _flagged(stuck, "loop") == [failures[2].span_id]
    # given a transient failure, its retry, and one more look at the same order
    retried = TraceFactory(task="Where is O-5003?", final_answer="It is on its way.")
    _tool(retried, 1, "get_order", args, "Error: 503", status=SpanStatus.ERROR)
    _tool(retried, 2, "get_order", args, {"status": "shipped"})
    _tool(retried, 3, "get_order", args, {"status": "shipped"})
    assert _flagged(retried, "loop") == []
