"""Realistic traces and examples for golden tests: support, travel booking, coding agents."""

from metrics.models import RedFlag
from reviews.models import Annotation, ReviewStatus
from tests.factories import (
    GoldenExampleFactory,
    ReviewItemFactory,
    SpanFactory,
    ToolSpanFactory,
    TraceFactory,
    UserFactory,
)
from traces.models import SpanKind, SpanStatus


def reference_step(number: int, tool: str, inputs: dict, output_fields: list[str]) -> dict:
    """One step of a golden example's reference trajectory, as the API and the JSONL take it."""
    return {
        "step": number,
        "tool": tool,
        "inputs": inputs,
        "acceptable_output_fields": output_fields,
    }


def cancel_reference(confirmation_field: str) -> list[dict]:
    """The cancel-order task's reference trajectory: look the customer's orders up, then cancel
    the one the lookup returned; the cancel step's output must carry `confirmation_field`."""
    return [
        reference_step(1, "get_recent_orders", {"customer_id": "<from_context>"}, ["orders"]),
        reference_step(
            2, "cancel_order", {"order_id": "<from_step_1_output>"}, [confirmation_field]
        ),
    ]


def cancel_order_trace(**overrides):
    """Support agent: looks up the customer's orders, then cancels the latest one."""
    fields = {
        "task": "Hi, I'm customer C-77. Please cancel my most recent order, I ordered it by "
        "mistake.",
        "task_type": "order_cancellation",
        "final_answer": "Your order A1042 has been cancelled; the refund takes 3-5 days.",
        "context": {"customer_tier": "gold", "locale": "en-GB"},
    }
    trace = TraceFactory(**{**fields, **overrides})
    SpanFactory(
        trace=trace,
        name="agent",
        kind=SpanKind.AGENT,
        tool_name="",
        input=None,
        output=None,
        position=0,
    )
    SpanFactory(
        trace=trace,
        name="plan",
        kind=SpanKind.LLM,
        tool_name="",
        input={"messages": 3},
        output="I should look up recent orders.",
        position=1,
    )
    ToolSpanFactory(
        trace=trace,
        name="get_recent_orders",
        input={"customer_id": "C-77", "limit": 5},
        output={
            "orders": [
                {"order_id": "A1042", "status": "processing", "total": 84.5},
                {"order_id": "A0999", "status": "delivered", "total": 12.0},
            ]
        },
        position=2,
    )
    ToolSpanFactory(
        trace=trace,
        name="cancel_order",
        input={"order_id": "A1042", "reason": "ordered by mistake", "notify": True},
        output={"cancelled": True, "refund_eta_days": 5},
        position=3,
    )
    return trace


def flight_booking_trace():
    """Travel agent: searches flights and books one, with a date the user gave."""
    trace = TraceFactory(
        task="Book me the cheapest flight from LIS to BER on 2026-03-14 for 1 adult.",
        task_type="flight_booking",
        final_answer="Booked TP538 on 2026-03-14, confirmation QX7P2L.",
        context={"traveller_id": "T-5521"},
    )
    ToolSpanFactory(
        trace=trace,
        name="search_flights",
        input={"origin": "LIS", "destination": "BER", "date": "2026-03-14", "adults": 1},
        output={"flights": [{"flight_id": "TP538", "price": 129.0}]},
        position=0,
    )
    ToolSpanFactory(
        trace=trace,
        name="book_flight",
        input={"flight_id": "TP538", "traveller_id": "T-5521", "seat": "any"},
        output={"confirmation": "QX7P2L"},
        position=1,
    )
    return trace


def coding_agent_timeout_trace():
    """Coding agent: the test run times out and the agent still claims success."""
    trace = TraceFactory(
        task="Fix the failing test tests/test_parser.py::test_dates and run the suite.",
        task_type="code_fix",
        final_answer="Fixed and all tests pass.",
    )
    ToolSpanFactory(
        trace=trace,
        name="read_file",
        input={"path": "tests/test_parser.py"},
        output={"content": "def test_dates(): ..."},
        position=0,
    )
    ToolSpanFactory(
        trace=trace,
        name="run_tests",
        input={"path": "tests/test_parser.py"},
        output=None,
        status=SpanStatus.ERROR,
        position=1,
    )
    return trace


def resolved_item(trace=None, *, score=0.0, explanation="", failure_tags=(), annotator=None):
    """A review item resolved by an annotation, as the review queue leaves it."""
    trace = trace or cancel_order_trace()
    item = ReviewItemFactory(trace=trace, status=ReviewStatus.RESOLVED, resolved_score=score)
    annotator = annotator or UserFactory(username="reviewer-rita")
    Annotation.objects.create(
        item=item,
        annotator=annotator,
        score=score,
        explanation=explanation,
        failure_tags=list(failure_tags),
    )
    return item


def red_flag(trace, kind=RedFlag.Kind.PREREQUISITE, detail="cancel_order before lookup"):
    return RedFlag.objects.create(trace=trace, kind=kind, detail=detail)


def example(**overrides):
    return GoldenExampleFactory(**overrides)
