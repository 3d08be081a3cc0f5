from golden.reference_trajectory import reference_trajectory_errors
from golden.trajectory_draft import reference_trajectory_draft
from tests.factories import SpanFactory, TraceFactory
from tests.golden.builders import (
    cancel_order_trace,
    coding_agent_timeout_trace,
    flight_booking_trace,
    reference_step,
)
from traces.models import SpanKind


def test_tool_calls_become_steps_in_order_with_output_fields(db):
    # given a support trace with an LLM span between tool calls
    trace = cancel_order_trace()
    # when the draft is made
    steps = reference_trajectory_draft(trace)
    # then only the tool calls are steps, numbered in order
    assert [(s["step"], s["tool"]) for s in steps] == [
        (1, "get_recent_orders"),
        (2, "cancel_order"),
    ]
    assert steps[0]["acceptable_output_fields"] == ["orders"]
    assert steps[1]["acceptable_output_fields"] == ["cancelled", "refund_eta_days"]


def test_values_from_earlier_outputs_and_task_become_placeholders(db):
    # given the order id came from get_recent_orders and the customer id from the task
    trace = cancel_order_trace()
    # when the draft is made
    steps = reference_trajectory_draft(trace)
    # then each value points at where it came from; unexplained values stay literal
    assert steps[0]["inputs"] == {"customer_id": "<from_context>", "limit": 5}
    assert steps[1]["inputs"] == {
        "order_id": "<from_step_1_output>",
        "reason": "ordered by mistake",  # paraphrased, not found verbatim: stays literal
        "notify": True,
    }
    assert reference_trajectory_errors(steps) == {}


def test_context_values_and_dates_resolve_to_context_and_ids_to_the_search_step(db):
    # given a travel trace whose traveller id is in the context and date in the task
    trace = flight_booking_trace()
    # when the draft is made
    steps = reference_trajectory_draft(trace)
    # then
    assert steps[0]["inputs"]["date"] == "<from_context>"
    assert steps[0]["inputs"]["origin"] == "<from_context>"
    assert steps[1]["inputs"]["flight_id"] == "<from_step_1_output>"
    assert steps[1]["inputs"]["traveller_id"] == "<from_context>"
    assert steps[1]["inputs"]["seat"] == "any"


def test_a_failed_tool_call_is_still_a_step_with_no_output_fields(db):
    # given a coding trace whose test run timed out
    trace = coding_agent_timeout_trace()
    # when the draft is made
    steps = reference_trajectory_draft(trace)
    # then the failed call stays, and its path is from the task
    assert steps[1] == reference_step(2, "run_tests", {"path": "<from_context>"}, [])


def test_the_latest_earlier_output_wins_when_two_steps_returned_the_value(db):
    # given a value returned by step 1 and step 2
    from tests.factories import SpanFactory, TraceFactory

    trace = TraceFactory(task="Refresh the cart", task_type="cart")
    SpanFactory(trace=trace, tool_name="get_cart", input={}, output={"cart_id": "K-1"}, position=0)
    SpanFactory(
        trace=trace,
        tool_name="lock_cart",
        input={"cart_id": "K-1"},
        output={"cart_id": "K-1"},
        position=1,
    )
    SpanFactory(trace=trace, tool_name="checkout", input={"cart_id": "K-1"}, output={}, position=2)
    # when
    steps = reference_trajectory_draft(trace)
    # then
    assert steps[1]["inputs"] == {"cart_id": "<from_step_1_output>"}
    assert steps[2]["inputs"] == {"cart_id": "<from_step_2_output>"}


def test_a_value_inside_an_earlier_output_sentence_counts_as_from_that_step(db):
    # given a tool that answered in prose holding the id
    from tests.factories import SpanFactory, TraceFactory

    trace = TraceFactory(
        task="Where is my parcel?",
        task_type="tracking",
        context={"available_tools": [{"name": "track", "input": "tracking_no"}]},
    )
    SpanFactory(
        trace=trace,
        tool_name="find_shipment",
        input={},
        output={"message": "Shipment ZX-4410 left the depot"},
        position=0,
    )
    SpanFactory(
        trace=trace,
        tool_name="track",
        input={"tracking_no": "ZX-4410", "kind": "track"},
        output={},
        position=1,
    )
    # when
    steps = reference_trajectory_draft(trace)
    # then the id comes from step 1; a tool-schema word is not taken as context
    assert steps[1]["inputs"] == {"tracking_no": "<from_step_1_output>", "kind": "track"}


def test_a_trace_whose_calls_live_only_in_its_model_calls_drafts_them(db):
    # given a plain SDK loop under a provider instrumentation: no tool span, the calls and
    # their results in the model calls' messages
    trace = TraceFactory(task="Hi, I'm customer C-77. Cancel my latest order.")
    task = {"role": "user", "content": trace.task}
    lookup = {
        "id": "c1",
        "function": {"name": "get_recent_orders", "arguments": '{"customer_id": "C-77"}'},
    }
    cancel = {
        "id": "c2",
        "function": {"name": "cancel_order", "arguments": '{"order_id": "A1042"}'},
    }
    looked_up = {
        "role": "tool",
        "tool_call_id": "c1",
        "content": '{"orders": [{"order_id": "A1042"}]}',
    }
    history = [task, {"role": "assistant", "tool_calls": [lookup]}, looked_up]
    SpanFactory(trace=trace, name="root", kind=SpanKind.CUSTOM, position=0)
    for position, (sent, reply) in enumerate(
        [
            ([task], {"role": "assistant", "tool_calls": [lookup]}),
            (history, {"role": "assistant", "tool_calls": [cancel]}),
        ],
        start=1,
    ):
        SpanFactory(
            trace=trace,
            name="chat",
            kind=SpanKind.LLM,
            input=sent,
            output=[reply],
            position=position,
        )
    # when the draft is made
    steps = reference_trajectory_draft(trace)
    # then each decided call is a step, its values traced to where they came from
    assert [(s["step"], s["tool"], s["inputs"]) for s in steps] == [
        (1, "get_recent_orders", {"customer_id": "<from_context>"}),
        (2, "cancel_order", {"order_id": "<from_step_1_output>"}),
    ]
    assert steps[0]["acceptable_output_fields"] == ["orders"]
