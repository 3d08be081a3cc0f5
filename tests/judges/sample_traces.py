"""Realistic agent traces for judging tests: support, travel and coding agents, each failure kind.

The simulated judge fails a trace when a tool errored and the answer is still confident, when a
call repeats identically, or when a parameter appears nowhere earlier; the others pass.
"""

import itertools

from tests.factories import ProjectFactory, trace_of_steps

ORDERS = {"orders": [{"order_id": "A1042", "total": "54.20"}]}


_tickets = itertools.count(4100)


def _trace(task, answer, steps, agent="support-agent", task_type="", project=None):
    # A ticket number makes every trace's prompt unique, so the request cache does not merge them.
    task = f"{task} (ticket {next(_tickets)})"
    return trace_of_steps(
        steps,
        root_name=agent,
        project=project or ProjectFactory(),
        task=task,
        final_answer=answer,
        agent_name=agent,
        task_type=task_type,
    )


def support_cancel_ok(**kw):
    return _trace(
        "Cancel order A1042 for customer C-77, it was placed by mistake.",
        "Order A1042 is cancelled; the refund of $54.20 reaches your card in 3-5 days.",
        [
            ("get_recent_orders", {"customer_id": "C-77"}, ORDERS, None),
            ("cancel_order", {"order_id": "A1042"}, {"status": "cancelled"}, None),
        ],
        task_type="order_cancellation",
        **kw,
    )


def support_confident_after_error(**kw):
    return _trace(
        "Cancel order A1042 for customer C-77.",
        "Done! Order A1042 has been cancelled.",
        [
            ("get_recent_orders", {"customer_id": "C-77"}, ORDERS, None),
            ("cancel_order", {"order_id": "A1042"}, None, "503 orders-db unavailable"),
        ],
        task_type="order_cancellation",
        **kw,
    )


def travel_book_ok(**kw):
    return _trace(
        "Book the cheapest nonstop SFO to JFK flight on 2026-03-14 for traveller T-311.",
        "Booked UA512 (nonstop, $248), confirmation QX7P2L.",
        [
            (
                "search_flights",
                {"origin": "SFO", "destination": "JFK", "date": "2026-03-14"},
                {"flights": [{"flight_id": "UA512", "price": 248, "stops": 0}]},
                None,
            ),
            (
                "book_flight",
                {"flight_id": "UA512", "traveller_id": "T-311"},
                {"confirmation": "QX7P2L"},
                None,
            ),
        ],
        agent="travel-agent",
        task_type="flight_booking",
        **kw,
    )


def travel_search_loop(**kw):
    search = {"origin": "SFO", "destination": "JFK", "date": "2026-03-14"}
    return _trace(
        "Find a nonstop SFO to JFK flight on 2026-03-14.",
        "UA512 is the cheapest nonstop at $248.",
        [
            ("search_flights", search, {"flights": [{"flight_id": "UA512", "price": 248}]}, None),
            ("search_flights", search, {"flights": [{"flight_id": "UA512", "price": 248}]}, None),
        ],
        agent="travel-agent",
        task_type="flight_search",
        **kw,
    )


def _bug_fix(answer, read_path, read_content, **kw):
    """The coding agent runs the failing test, reads one file and answers; the file it reads
    (one the test output named, or one nothing named) decides whether the judge passes it."""
    return _trace(
        "The test tests/test_api.py::test_create_order fails; find and fix the bug.",
        answer,
        [
            (
                "run_tests",
                {"path": "tests/test_api.py"},
                {"failed": ["test_create_order"], "trace": "src/api/views.py line 88"},
                None,
            ),
            ("read_file", {"path": read_path}, {"content": read_content}, None),
        ],
        agent="coding-agent",
        task_type="bug_fix",
        **kw,
    )


def coding_hallucinated_path(**kw):
    return _bug_fix(
        "Fixed the missing await in the order handler; the test passes now.",
        "src/orders/handlers.py",
        "def create()",
        **kw,
    )


def coding_fix_ok(**kw):
    return _bug_fix(
        "Fixed the missing await in src/api/views.py; test_create_order passes.",
        "src/api/views.py",
        "def create(): save()",
        **kw,
    )


PASSING = (support_cancel_ok, travel_book_ok, coding_fix_ok)
FAILING = (support_confident_after_error, travel_search_loop, coding_hallucinated_path)
ALL = PASSING + FAILING


def traces_mixed(count: int, **kw) -> list:
    """`count` traces cycling through every kind, passing and failing."""
    return [ALL[index % len(ALL)](**kw) for index in range(count)]
