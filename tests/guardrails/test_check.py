"""Each runtime check, the decision it leads to, and the span it names (service level)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.errors import ApplicationError
from guardrails.check import guardrail_check
from guardrails.models import GuardrailDecision
from metrics.models import GuardrailPolicy
from tests.factories import ProjectFactory, ToolSpanFactory, TraceFactory
from tests.guardrails.trajectories import (
    SEARCH,
    anthropic_transcript,
    search_steps,
    span_tree,
    tool,
)

pytestmark = pytest.mark.django_db


def _fired(result, blocking=None):
    return [c["check"] for c in result.checks if blocking is None or c["blocking"] is blocking]


def _cancel_after_the_lookup_checked(order_id):
    """The check of cancelling `order_id` after a lookup that returned order A1042 alone."""
    trajectory = span_tree(
        tool("get_recent_orders", {"customer_id": "C-77"}, {"orders": [{"order_id": "A1042"}]})
    )
    next_call = {"tool": "cancel_order", "input": {"order_id": order_id}}
    return guardrail_check(None, trajectory=trajectory, next_call=next_call)


def test_clean_next_call_is_allowed():
    # given the order was looked up, and the agent is about to cancel it
    # when
    result = _cancel_after_the_lookup_checked("A1042")
    # then
    assert result.decision == "allow" and result.checks == []
    assert result.steps == 2


def test_third_identical_call_is_blocked_and_named():
    # given two identical searches already made
    trajectory = span_tree(*search_steps(2), task="Flights LHR to JFK")
    # when the agent asks to make the same call a third time
    result = guardrail_check(
        None,
        trajectory=trajectory,
        next_call={"tool": "search_flights", "input": SEARCH, "id": "c3"},
    )
    # then it is blocked on that call, with a fallback to hand to the model
    assert result.decision == "block"
    (loop,) = result.checks
    assert loop["check"] == "loop" and loop["span_id"] == "c3" and loop["blocking"]
    assert "3 times" in loop["detail"] and loop["fallback"].startswith("Blocked")


def test_second_identical_call_is_allowed():
    trajectory = span_tree(*search_steps(1), task="Flights LHR to JFK")
    result = guardrail_check(
        None, trajectory=trajectory, next_call={"tool": "search_flights", "input": SEARCH}
    )
    assert result.decision == "allow"


def test_near_identical_calls_count_as_a_loop():
    # given searches that differ only in case and spacing
    trajectory = span_tree(
        tool("search_flights", {"origin": "LHR", "destination": "JFK"}, {"flights": []}),
        tool("search_flights", {"origin": "lhr ", "destination": "jfk"}, {"flights": []}),
        task="Flights LHR to JFK",
    )
    # when / then
    result = guardrail_check(
        None,
        trajectory=trajectory,
        next_call={"tool": "search_flights", "input": {"origin": "L.H.R", "destination": "JFK"}},
    )
    assert _fired(result, blocking=True) == ["loop"]
    # while a different destination is a new search
    other = guardrail_check(
        None,
        trajectory=trajectory,
        next_call={"tool": "search_flights", "input": {"origin": "LHR", "destination": "BOS"}},
    )
    assert other.decision == "allow"


def test_project_loop_threshold_applies():
    # given a curator allows four repeats in this project
    project = ProjectFactory(slug="travel")
    GuardrailPolicy.objects.create(project=project, loop_repeats=4, max_steps=30)
    trajectory = span_tree(*search_steps(2), task="Flights LHR to JFK")
    # when the third identical call is asked for
    result = guardrail_check(
        project, trajectory=trajectory, next_call={"tool": "search_flights", "input": SEARCH}
    )
    # then it is allowed, and the answer says which thresholds held
    assert result.decision == "allow"
    assert result.rules.loop_repeats == 4 and result.policy_source == "project"


def test_hallucinated_parameter_in_the_next_call_is_blocked():
    # given the lookup returned A1042, and the agent wants to cancel A1049
    # when
    result = _cancel_after_the_lookup_checked("A1049")
    # then
    assert _fired(result) == ["hallucinated_parameter"]
    assert result.decision == "block" and "A1049" in result.checks[0]["detail"]
    assert result.checks[0]["span_id"] == "next_call"


def test_value_given_in_a_transcript_user_turn_is_not_hallucinated():
    # given an Anthropic conversation where the user gave the order id
    transcript = anthropic_transcript(
        [("get_order", {"order_id": "A1042"}, {"status": "shipped"})],
        task="Where is my order A1042? Please cancel it if it has not shipped.",
    )
    # when
    result = guardrail_check(
        None,
        trajectory=transcript,
        next_call={"tool": "cancel_order", "input": {"order_id": "A1042"}},
    )
    # then
    assert result.decision == "allow", result.checks


def test_write_before_its_prerequisite_is_blocked_with_project_prerequisites():
    # given the project says refunds need a verified identity
    project = ProjectFactory(slug="support")
    GuardrailPolicy.objects.create(
        project=project, tool_prerequisites={"issue_refund": ["verify_identity"]}
    )
    trajectory = span_tree(tool("get_order", {"order_id": "A1042"}, {"total": 30}))
    # when the agent asks to refund straight away
    result = guardrail_check(
        project,
        trajectory=trajectory,
        next_call={"tool": "issue_refund", "input": {"order_id": "A1042"}},
    )
    # then it is blocked, naming the missing prerequisite
    assert _fired(result) == ["prerequisite"]
    assert "verify_identity" in result.checks[0]["detail"]
    # and once identity was verified, it is allowed
    verified = span_tree(
        tool("get_order", {"order_id": "A1042"}, {"total": 30}),
        tool("verify_identity", {"order_id": "A1042"}, {"verified": True}),
    )
    again = guardrail_check(
        project,
        trajectory=verified,
        next_call={"tool": "issue_refund", "input": {"order_id": "A1042"}},
    )
    assert again.decision == "allow"


def test_step_limit_blocks_the_call_over_it_and_every_later_one():
    project = ProjectFactory(slug="support")
    GuardrailPolicy.objects.create(project=project, max_steps=3)
    steps = [tool("get_page", {"page": n}, {"rows": [n]}) for n in range(1, 4)]
    # when the fourth call is asked for
    result = guardrail_check(
        project, trajectory=span_tree(*steps), next_call={"tool": "get_page", "input": {"page": 4}}
    )
    # then
    assert _fired(result, blocking=True) == ["max_steps_exceeded"]
    assert result.checks[0]["span_id"] == "next_call"
    # and the third is still fine
    fine = guardrail_check(
        project,
        trajectory=span_tree(*steps[:2]),
        next_call={"tool": "get_page", "input": {"page": 3}},
    )
    assert fine.decision == "allow"


def test_earlier_hits_are_reported_without_blocking():
    # given an earlier call used a made-up id, and the next call is sound
    trajectory = span_tree(
        tool("get_order", {"order_id": "Z9999"}, {"order_id": "Z9999", "status": "open"})
    )
    # when
    result = guardrail_check(
        None, trajectory=trajectory, next_call={"tool": "get_order", "input": {"order_id": "Z9999"}}
    )
    # then the old hit is shown, but the call goes ahead
    assert result.decision == "allow"
    assert _fired(result, blocking=False) == ["hallucinated_parameter"]


def test_without_a_next_call_the_last_call_is_checked():
    trajectory = span_tree(*search_steps(3), task="Flights LHR to JFK")
    result = guardrail_check(None, trajectory=trajectory)
    assert result.decision == "block" and _fired(result) == ["loop"]
    assert result.checked_span_id == result.checks[0]["span_id"]


def test_stored_trace_by_id_is_checked():
    # given a trace being exported, two searches stored so far
    trace = TraceFactory(task="Flights LHR to JFK", context={})
    for position in (1, 2):
        ToolSpanFactory(
            trace=trace,
            name="search_flights",
            input=SEARCH,
            output={"flights": []},
            position=position,
        )
    # when the agent names it by id
    result = guardrail_check(
        trace.project,
        trace_id=trace.external_id,
        next_call={"tool": "search_flights", "input": SEARCH},
    )
    # then the stored spans count
    assert result.decision == "block" and _fired(result) == ["loop"]


def test_unknown_trace_id_names_the_field():
    with pytest.raises(ApplicationError) as caught:
        guardrail_check(ProjectFactory(), trace_id="feedbeef")
    assert caught.value.field == "trace_id"


def test_bad_span_tree_names_the_field_under_trajectory():
    with pytest.raises(ApplicationError) as caught:
        guardrail_check(None, trajectory={"name": "agent", "children": [{"type": "tool"}]})
    assert caught.value.field == "trajectory.children[0].name"


def test_a_check_writes_nothing():
    project = ProjectFactory(slug="support")
    trajectory = span_tree(*search_steps(2), task="Flights LHR to JFK")
    with CaptureQueriesContext(connection) as queries:
        guardrail_check(
            project, trajectory=trajectory, next_call={"tool": "search_flights", "input": SEARCH}
        )
    writes = [q["sql"] for q in queries if not q["sql"].lstrip().upper().startswith("SELECT")]
    assert writes == [] and len(queries) == 1
    assert not GuardrailDecision.objects.exists()
