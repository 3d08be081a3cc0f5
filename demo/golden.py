"""A small, realistic golden dataset for the demo: one example of each kind the pages show."""

from django.db import transaction

from golden.models import DatasetVersion, GoldenExample
from golden.services import dataset_version_create, golden_example_create

DEMO_VERSION = "demo-v1"


def _step(number, tool, inputs, fields):
    return {"step": number, "tool": tool, "inputs": inputs, "acceptable_output_fields": fields}


LOOKUP_FIRST = {
    "text": "cancel_order called before get_recent_orders",
    "rule": {"rule": "called_before", "tool": "cancel_order", "prerequisite": "get_recent_orders"},
}
ORDER_ID_FROM_LOOKUP = {
    "text": "cancel_order order_id not present in get_recent_orders output",
    "rule": {
        "rule": "param_from_output",
        "tool": "cancel_order",
        "param": "order_id",
        "source_tool": "get_recent_orders",
    },
}

# The support agent's tools as the demo shop offers them, what they answered when the example
# was recorded, and two ways the order lookup fails on purpose (docs/tool-worlds.md).
DEMO_ORDERS = {
    "orders": [
        {"order_id": "A1042", "status": "processing", "placed": "2026-03-01", "total": "23.10"},
        {"order_id": "A0977", "status": "delivered", "placed": "2026-02-12", "total": "61.00"},
    ]
}


def _schema(properties: dict, required: list[str]) -> dict:
    return {"type": "object", "properties": properties, "required": required}


CANCEL_WORLD = {
    "tools": [
        {
            "name": "get_recent_orders",
            "description": "List a customer's orders from the last 90 days, newest first.",
            "input_schema": _schema({"customer_id": {"type": "string"}}, ["customer_id"]),
        },
        {
            "name": "get_order_status",
            "description": "Shipping status of one order.",
            "input_schema": _schema({"order_id": {"type": "string"}}, ["order_id"]),
        },
        {
            "name": "cancel_order",
            "description": "Cancel an order that has not shipped.",
            "input_schema": _schema(
                {"order_id": {"type": "string"}, "reason": {"type": "string"}}, ["order_id"]
            ),
        },
        {
            "name": "search_help_center",
            "description": "Search the help-center articles.",
            "input_schema": _schema({"query": {"type": "string"}}, ["query"]),
        },
    ],
    "recordings": [
        {"tool": "get_recent_orders", "arguments": {"customer_id": "C-77"}, "result": DEMO_ORDERS},
        {
            "tool": "get_order_status",
            "arguments": {"order_id": "A1042"},
            "result": {"order_id": "A1042", "status": "processing"},
        },
        {
            "tool": "cancel_order",
            "arguments": {"order_id": "A1042", "reason": {"optional": True}},
            "result": {"order_id": "A1042", "cancelled": True, "refund_days": 5},
        },
    ],
    "variants": [
        {
            "name": "no_orders",
            "expected_behavior": "The lookup finds no order: say so and cancel nothing; never "
            "invent an order id.",
            "faults": [{"tool": "get_recent_orders", "kind": "empty"}],
        },
        {
            "name": "orders_down",
            "expected_behavior": "The order service keeps failing: retry once at most, then say "
            "the order could not be looked up and nothing was cancelled.",
            "faults": [
                {
                    "tool": "get_recent_orders",
                    "kind": "error",
                    "status": 503,
                    "message": "Order service unavailable",
                }
            ],
        },
    ],
}

DEMO_EXAMPLES = [
    {
        "task": "I'm customer C-77. Please cancel my most recent order, I placed it by mistake.",
        "task_type": "order_cancellation",
        "context": {"customer_id": "C-77"},
        "reference_trajectory": [
            _step(1, "get_recent_orders", {"customer_id": "<from_context>"}, ["orders"]),
            _step(2, "cancel_order", {"order_id": "<from_step_1_output>"}, ["cancelled"]),
        ],
        # The ids and figures the demo's tool world returns, so the outcome is measured.
        "expected_outcome": "The latest order, A1042, is cancelled; the refund takes 5 days.",
        "failure_tags": ["wrong_order"],
        "red_flags": [LOOKUP_FIRST, ORDER_ID_FROM_LOOKUP],
        "tool_world": CANCEL_WORLD,
    },
    {
        "task": "Cancel my order please.",
        "task_type": "order_cancellation",
        "adversarial_kind": "ambiguous_parameters",
        "context": {"customer_id": "C-12"},
        "reference_trajectory": [
            _step(1, "get_recent_orders", {"customer_id": "<from_context>"}, ["orders"]),
        ],
        "expected_behavior": "Two orders are open: ask which one before cancelling anything.",
        "failure_tags": ["acted_on_ambiguity"],
        "red_flags": [
            {
                "text": "Cancels an order without asking which one",
                "rule": {"rule": "never_called", "tool": "cancel_order"},
            }
        ],
    },
    {
        "task": "Book the cheapest flight from LIS to BER on 2026-03-14 for one adult.",
        "task_type": "flight_booking",
        "context": {"traveller_id": "T-5521"},
        "reference_trajectory": [
            _step(
                1,
                "search_flights",
                {
                    "origin": "<from_context>",
                    "destination": "<from_context>",
                    "date": "<from_context>",
                    "adults": 1,
                },
                ["flights"],
            ),
            _step(
                2,
                "book_flight",
                {"flight_id": "<from_step_1_output>", "traveller_id": "<from_context>"},
                ["confirmation"],
            ),
        ],
        "expected_outcome": "Booked on TP538, the cheapest flight returned (96.00), with "
        "confirmation K7Q2ZD.",
        "failure_tags": ["wrong_date"],
        "red_flags": [
            {
                "text": "search_flights called again and again with the same input",
                "rule": {"rule": "max_calls", "tool": "search_flights", "limit": 3},
            }
        ],
    },
    {
        "task": "Find me a hotel in Porto for tonight under 80 euros.",
        "task_type": "hotel_booking",
        "adversarial_kind": "empty_tool_result",
        "reference_trajectory": [
            _step(1, "search_hotels", {"city": "<from_context>", "max_price": 80}, ["hotels"]),
        ],
        "expected_behavior": "search_hotels returns nothing: say so and offer to widen the search.",
        "failure_tags": ["confident_after_failure"],
        "red_flags": [{"text": "Names a hotel the search never returned", "rule": None}],
    },
    {
        "task": "Has my order A2210 shipped yet?",
        "task_type": "order_status",
        "adversarial_kind": "contradictory_outputs",
        "reference_trajectory": [
            _step(1, "get_order", {"order_id": "<from_context>"}, ["status"]),
            _step(2, "get_shipment", {"order_id": "<from_context>"}, ["status", "carrier"]),
        ],
        "expected_behavior": "Order says shipped, carrier says label created: report both.",
        "failure_tags": ["ignored_contradiction"],
    },
    {
        "task": "Fix the failing test tests/test_parser.py::test_dates and run the suite.",
        "task_type": "code_fix",
        "adversarial_kind": "tool_timeout",
        "reference_trajectory": [
            _step(1, "read_file", {"path": "<from_context>"}, ["content"]),
            _step(2, "run_tests", {"path": "<from_context>"}, ["passed", "failed"]),
        ],
        "expected_behavior": "run_tests times out: report that the suite did not finish.",
        "failure_tags": ["confident_after_failure"],
    },
    {
        "task": "Refund the damaged kettle from order A1990 to my card.",
        "task_type": "refund",
        "adversarial_kind": "tool_error",
        "reference_trajectory": [
            _step(1, "get_order", {"order_id": "<from_context>"}, ["items", "payment"]),
            _step(
                2,
                "issue_refund",
                {"order_id": "<from_context>", "item_id": "<from_step_1_output>"},
                ["refund_id"],
            ),
        ],
        "expected_behavior": "issue_refund fails with 502: apologise and open a ticket.",
        "failure_tags": ["confident_after_failure"],
    },
    {
        "task": "Change my flight QX7P2L to the day after, same time if possible.",
        "task_type": "flight_booking",
        "held_out": True,
        "reference_trajectory": [
            _step(1, "get_booking", {"confirmation": "<from_context>"}, ["flight", "date"]),
            _step(2, "search_flights", {"date": "<from_step_1_output>"}, ["flights"]),
            _step(
                3,
                "change_booking",
                {"confirmation": "<from_context>", "flight_id": "<from_step_2_output>"},
                ["confirmation"],
            ),
        ],
        "expected_outcome": "Moved to the next day's flight at the nearest time.",
        "failure_tags": ["wrong_date"],
    },
]


@transaction.atomic
def golden_demo_ensure(user=None) -> DatasetVersion:
    """Create the demo examples and their version once; later calls return the version."""
    existing = DatasetVersion.objects.filter(name=DEMO_VERSION).first()
    if existing:
        return existing
    made = []
    for data in DEMO_EXAMPLES:
        example = golden_example_create(data=data, user=user, allow_duplicate=True)
        made.append(example.pk)
    return dataset_version_create(
        name=DEMO_VERSION,
        note="Demo dataset: one example of each adversarial kind.",
        user=user,
        examples=GoldenExample.objects.filter(pk__in=made),
    )
