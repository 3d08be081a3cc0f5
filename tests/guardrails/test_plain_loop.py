"""A plain SDK tool loop sent to POST /api/guardrails/check: no tool span, each call told only
in the model calls' messages (decided in one call's output, its result handed to the next).
The calls told count as steps before the call about to be made, and without `next_call` the
last call told is the one checked, named by the model call that decided it."""

import pytest

from metrics.models import GuardrailPolicy
from metrics.steps import tool_steps_from_spans, trace_spans
from tests.conformance.harness import PROJECT
from tests.conformance.recorded_reading import send_recorded
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db
URL = "/api/guardrails/check"
TASK = {"role": "user", "content": "Refund order A-1042."}
ORDER = {"order_id": "A-1042"}


def _decision(call_id: str, tool: str) -> dict:
    arguments = '{"order_id": "A-1042"}'
    call = {"id": call_id, "type": "function", "function": {"name": tool, "arguments": arguments}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def _plain_loop(*calls: tuple[str, str, str | None]) -> dict:
    """A span tree of model calls only: for each (call id, tool, result), a model call `m<n>`
    decides the call, and the next one is handed its result (None: not handed back yet)."""
    history: list[dict] = [TASK]
    children = []
    for n, (call_id, tool, result) in enumerate(calls, start=1):
        decided = _decision(call_id, tool)
        children.append(
            {
                "name": "chat",
                "type": "llm",
                "span_id": f"m{n}",
                "input": history,
                "output": [decided],
            }
        )
        history = [*history, decided]
        if result is not None:
            history.append({"role": "tool", "tool_call_id": call_id, "content": result})
    return {"name": "support-agent", "type": "agent", "task": TASK["content"], "children": children}


def _check(agent, trajectory: dict, next_call: dict | None = None) -> dict:
    payload = {"project": "shop", "trajectory": trajectory}
    if next_call is not None:
        payload["next_call"] = next_call
    response = agent.post(URL, payload, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


@pytest.fixture
def lookup_before_refund():
    return GuardrailPolicy.objects.create(
        project=ProjectFactory(slug="shop"), tool_prerequisites={"refund": ["lookup_order"]}
    )


def test_a_refund_after_a_lookup_told_in_messages_is_allowed(agent, lookup_before_refund):
    # given the lookup is told only in the messages, and the last model call decided the refund
    trajectory = _plain_loop(
        ("c1", "lookup_order", '{"status": "delivered"}'), ("c2", "refund", None)
    )
    # when the agent asks before making it
    body = _check(agent, trajectory, {"tool": "refund", "input": ORDER, "id": "c2"})
    # then the lookup counts before it, and the refund told as decided is the pending one
    assert body["decision"] == "allow" and body["checks"] == []
    assert body["steps"] == 2 and body["checked_span_id"] == "c2"


def test_the_told_decision_without_an_id_is_matched_by_its_arguments(agent, lookup_before_refund):
    trajectory = _plain_loop(
        ("c1", "lookup_order", '{"status": "delivered"}'), ("c2", "refund", None)
    )
    body = _check(agent, trajectory, {"tool": "refund", "input": ORDER})
    assert body["decision"] == "allow" and body["steps"] == 2


def test_a_refund_with_no_lookup_told_is_blocked(agent, lookup_before_refund):
    body = _check(
        agent, _plain_loop(("c1", "refund", None)), {"tool": "refund", "input": ORDER, "id": "c1"}
    )
    assert body["decision"] == "block" and body["steps"] == 1
    assert [(c["check"], c["span_id"], c["blocking"]) for c in body["checks"]] == [
        ("prerequisite", "c1", True)
    ]


def test_a_refund_made_again_is_seen_as_a_repeat(agent):
    # given a refund made and handed back, and the model deciding the same refund again
    GuardrailPolicy.objects.create(project=ProjectFactory(slug="shop"), loop_repeats=2)
    trajectory = _plain_loop(
        ("c1", "lookup_order", '{"status": "delivered"}'),
        ("c2", "refund", '{"refunded": true}'),
        ("c3", "refund", None),
    )
    body = _check(agent, trajectory, {"tool": "refund", "input": ORDER, "id": "c3"})
    assert body["decision"] == "block" and body["steps"] == 3
    assert [(c["check"], c["span_id"], c["blocking"]) for c in body["checks"]] == [
        ("loop", "c3", True)
    ]


def test_without_next_call_the_last_told_call_is_checked_and_blocks(agent, lookup_before_refund):
    trajectory = _plain_loop(("c1", "refund", None))
    body = _check(agent, trajectory)
    assert body["checked_span_id"] == "m1" and body["steps"] == 1
    assert body["decision"] == "block"
    assert [(c["check"], c["span_id"], c["blocking"]) for c in body["checks"]] == [
        ("prerequisite", "m1", True)
    ]


def test_without_next_call_an_earlier_told_call_s_flag_does_not_block(agent, lookup_before_refund):
    # the refund came first (flagged), then the agent looked the order up
    trajectory = _plain_loop(("c1", "refund", '{"refunded": true}'), ("c2", "lookup_order", None))
    body = _check(agent, trajectory)
    assert body["checked_span_id"] == "m2" and body["steps"] == 2
    assert body["decision"] == "allow"
    assert [(c["check"], c["span_id"], c["blocking"]) for c in body["checks"]] == [
        ("prerequisite", "m1", False)
    ]


def test_the_steps_told_count_against_the_step_limit(agent):
    GuardrailPolicy.objects.create(project=ProjectFactory(slug="shop"), max_steps=2)
    told = [("c1", "lookup_order", "{}"), ("c2", "lookup_customer", "{}")]
    assert _check(agent, _plain_loop(*told))["decision"] == "allow"
    body = _check(agent, _plain_loop(*told, ("c3", "lookup_payment", None)))
    assert body["steps"] == 3 and body["decision"] == "block"
    assert [c["check"] for c in body["checks"]] == ["max_steps_exceeded"]


def test_a_recorded_litellm_plain_loop_stored_is_checked_by_its_trace_id(agent):
    # given LiteLLM's OTel callback's recorded run (lookup_order, then refund; no tool span)
    # stored, and a project that wants the identity verified before a refund
    trace = send_recorded(agent, "litellm-otel")
    GuardrailPolicy.objects.create(
        project=trace.project, tool_prerequisites={"refund": ["verify_identity"]}, loop_repeats=2
    )
    refund = tool_steps_from_spans(trace_spans(trace))[-1]
    check = {"project": PROJECT, "trace_id": trace.external_id}
    # when its last call is checked, the refund is the step checked, named by its model call
    body = agent.post(URL, check, format="json").json()
    assert body["steps"] == 2 and body["checked_span_id"] == refund.span_id
    assert body["decision"] == "block"
    assert [(c["check"], c["blocking"]) for c in body["checks"]] == [("prerequisite", True)]
    # and the same refund about to be made again is a repeat
    again = {**check, "next_call": {"tool": "refund", "input": refund.inputs, "id": "call_9"}}
    body = agent.post(URL, again, format="json").json()
    assert body["steps"] == 3 and body["decision"] == "block"
    assert ("loop", "call_9", True) in [
        (c["check"], c["span_id"], c["blocking"]) for c in body["checks"]
    ]
