"""Answering calls from a trial's tool world: recordings, defaults, and each fault kind."""

import json

import pytest

from accounts.roles import CURATOR
from golden.models import EvalTrial, ToolWorldCall
from golden.worlds.serving import tool_world_call
from tests.factories import UserFactory
from tests.golden.world_builders import ORDERS, handout, support_world, world_example, world_run

pytestmark = pytest.mark.django_db
HTTP = ToolWorldCall.Transport.HTTP


@pytest.fixture
def curator():
    return UserFactory(roles=[CURATOR])


def _trial(handouts, variant=""):
    return EvalTrial.objects.select_related("entry").get(pk=handout(handouts, variant)["trial_id"])


def _call(trial, tool, arguments):
    return tool_world_call(trial, tool, arguments, transport=HTTP)


def test_recording_matches_under_the_matchers_parameter_rules(curator):
    _, handouts = world_run(curator)
    trial = _trial(handouts)
    # an id in another case, an optional argument left out, then given
    first = _call(trial, "get_recent_orders", {"customer_id": "c-77"})
    second = _call(trial, "get_recent_orders", {"customer_id": "C-77", "limit": 5})
    assert first.status == second.status == 200
    assert first.body == {"result": ORDERS} and first.call.recording == 0
    # a day as unix seconds (2026-03-01 12:00 UTC) is the recorded ISO day
    since = _call(trial, "list_orders_since", {"customer_id": "C-77", "since": 1772366400})
    assert since.status == 200 and since.call.recording == 1
    # an argument the recording does not have is another call: the declared default answers
    extra = _call(trial, "get_order_status", {"order_id": "A1042", "verbose": True})
    assert extra.status == 404 and extra.body["error"]["code"] == "no_recording"
    assert extra.call.recording is None
    # every call is numbered in the order served
    assert list(trial.tool_calls.order_by("sequence").values_list("sequence", flat=True)) == [
        1,
        2,
        3,
        4,
    ]


def test_unrecorded_calls_get_the_curators_rule(curator):
    world = support_world()
    world["unrecorded"] = {"kind": "result", "result": {"orders": []}}
    _, handouts = world_run(curator, examples=[world_example(curator, world=world)])
    answer = _call(_trial(handouts), "get_recent_orders", {"customer_id": "C-12"})
    assert answer.status == 200 and answer.body == {"result": {"orders": []}}


def test_unknown_tool_and_bad_arguments_are_answered_and_recorded(curator):
    _, handouts = world_run(curator)
    trial = _trial(handouts)
    unknown = _call(trial, "refund_order", {"order_id": "A1042"})
    assert unknown.status == 404 and unknown.body["error"]["code"] == "unknown_tool"
    assert "get_recent_orders" in unknown.body["error"]["message"]
    missing = _call(trial, "cancel_order", {"reason": "mistake"})
    assert missing.status == 400 and missing.body["error"]["fields"] == {
        "order_id": ["'order_id' is a required property"]
    }
    wrong_type = _call(trial, "get_recent_orders", {"customer_id": "C-77", "limit": 0})
    assert wrong_type.status == 400 and "limit" in wrong_type.body["error"]["fields"]
    not_object = _call(trial, "get_recent_orders", '{"customer_id": "C-77"')
    assert not_object.status == 400 and "arguments" in not_object.body["error"]["fields"]
    stored = list(trial.tool_calls.order_by("sequence").values_list("tool", "arguments", "status"))
    assert stored == [
        ("refund_order", {"order_id": "A1042"}, 404),
        ("cancel_order", {"reason": "mistake"}, 400),
        ("get_recent_orders", {"customer_id": "C-77", "limit": 0}, 400),
        ("get_recent_orders", '{"customer_id": "C-77"', 400),
    ]


def test_empty_fault_keeps_the_results_shape(curator):
    _, handouts = world_run(curator)
    trial = _trial(handouts, "no_orders")
    answer = _call(trial, "get_recent_orders", {"customer_id": "C-77"})
    assert answer.status == 200 and answer.body == {"result": {}}
    assert answer.call.fault == {
        "variant": "no_orders",
        "tool": "get_recent_orders",
        "kind": "empty",
    }
    # other tools of the variant answer as recorded
    assert _call(trial, "cancel_order", {"order_id": "A1042"}).call.fault is None


def test_error_fault_fires_at_the_nth_call_only(curator):
    _, handouts = world_run(curator)
    trial = _trial(handouts, "lookup_down")
    # a refused call does not count as the tool's first
    assert _call(trial, "get_recent_orders", {}).status == 400
    first = _call(trial, "get_recent_orders", {"customer_id": "C-77"})
    retry = _call(trial, "get_recent_orders", {"customer_id": "C-77"})
    assert first.status == 503
    assert first.body["error"] == {
        "code": "tool_error",
        "message": "orders service unavailable",
        "fields": {},
    }
    assert retry.status == 200 and retry.body == {"result": ORDERS} and retry.call.fault is None


def test_timeout_fault_holds_then_answers_504(curator):
    _, handouts = world_run(curator)
    answer = _call(_trial(handouts, "cancel_timeout"), "cancel_order", {"order_id": "A1042"})
    assert answer.status == 504 and answer.delay_seconds == pytest.approx(0.3)
    assert answer.body["error"]["code"] == "timeout"


def test_malformed_shapes(curator):
    world = support_world()
    world["variants"] = [
        {
            "name": shape,
            "expected_behavior": "Report that the orders could not be read.",
            "faults": [{"tool": "get_recent_orders", "kind": "malformed", "malformed": shape}],
        }
        for shape in ("truncated_json", "wrong_types", "extra_field")
    ]
    _, handouts = world_run(curator, examples=[world_example(curator, world=world)])
    args = {"customer_id": "C-77"}
    truncated = _call(_trial(handouts, "truncated_json"), "get_recent_orders", args)
    assert truncated.status == 200 and truncated.body is None
    with pytest.raises(json.JSONDecodeError):
        json.loads(truncated.text)
    # the first half of the recorded answer, cut mid-way
    assert truncated.text.startswith('{"result": {"orders": [{')
    assert len(truncated.text) == len(json.dumps({"result": ORDERS})) // 2
    assert truncated.call.returned == truncated.text
    wrong = _call(_trial(handouts, "wrong_types"), "get_recent_orders", args)
    first = wrong.body["result"]["orders"][0]
    assert first["total"] == "84.5" and first["order_id"] == ["A1042"]
    extra = _call(_trial(handouts, "extra_field"), "get_recent_orders", args)
    assert extra.body["result"] == {**ORDERS, "unexpected_field": "?"}


def test_contradictory_fault_fires_on_matching_arguments(curator):
    _, handouts = world_run(curator)
    trial = _trial(handouts, "status_disagrees")
    orders = _call(trial, "get_recent_orders", {"customer_id": "C-77"})
    status = _call(trial, "get_order_status", {"order_id": "A1042"})
    other = _call(trial, "get_order_status", {"order_id": "A0999"})
    assert orders.body["result"]["orders"][0]["status"] == "processing"
    assert status.body == {"result": {"order_id": "A1042", "status": "delivered"}}
    assert status.call.fault["contradicts"] == "get_recent_orders"
    assert other.call.fault is None and other.status == 404
