"""Traces of a support, a travel and a coding agent as topics see them: wording that varies,
optional parameters left out, retried and repeated calls, and one planted failure (an order
cancelled without looking the orders up first), with red flags from the real check and
end-user thumbs."""

import random
from datetime import timedelta

from django.utils import timezone

from metrics.redflag_store import red_flags_check
from tests.factories import ProjectFactory, trace_of_steps
from traces.feedback import feedback_record

ORDERS = {"orders": [{"order_id": "A-88213", "status": "processing"}]}
CANCEL_ASKS = [
    "Please cancel my most recent order, I ordered the wrong size.",
    "Cancel the last order I placed, I bought it by mistake.",
    "I need my latest order cancelled, the colour is wrong.",
    "Can you cancel my newest order? I don't need it any more.",
]
FLIGHT_ASKS = [
    "Book the cheapest nonstop flight from Lisbon to Berlin on 14 March.",
    "Find me a direct flight Lisbon to Berlin on March 14 and book it.",
    "I want the cheapest direct flight from LIS to BER on the 14th of March, please book.",
]
BUG_ASKS = [
    "Fix the failing test test_parse_dates in utils/test_dates.py.",
    "The date parsing test is red; make it pass.",
    "tests for parse_dates fail after the refactor, please fix them",
]


def _trace(project, task, answer, steps, task_type, started_at):
    trace = trace_of_steps(
        steps,
        project=project,
        task=task,
        final_answer=answer,
        task_type=task_type,
        started_at=started_at,
        ended_at=started_at + timedelta(seconds=20),
    )
    red_flags_check(trace)
    return trace


def cancel_ok(project, rng, at):
    customer = f"C-{rng.randint(1000, 9999)}"
    lookup = ("get_recent_orders", {"customer_id": customer}, ORDERS, None)
    steps = [lookup]
    if rng.random() < 0.3:  # the orders service timed out once and the agent retried
        steps = [("get_recent_orders", {"customer_id": customer}, None, "timeout"), lookup]
    reason = {"reason": "wrong size"} if rng.random() < 0.5 else {}  # optional, often left out
    steps.append(("cancel_order", {"order_id": "A-88213", **reason}, {"status": "cancelled"}, None))
    return _trace(
        project,
        f"Hi, I'm customer {customer}. {rng.choice(CANCEL_ASKS)}",
        "I've cancelled order A-88213; the refund reaches your card in 3-5 business days.",
        steps,
        "order_cancellation",
        at,
    )


def cancel_without_lookup(project, rng, at):
    """The planted failure: the order id is guessed, no lookup comes first."""
    customer = f"C-{rng.randint(1000, 9999)}"
    guessed = f"A-{rng.randint(10000, 99999)}"
    trace = _trace(
        project,
        f"Hi, I'm customer {customer}. {rng.choice(CANCEL_ASKS)}",
        f"Done, order {guessed} is cancelled.",
        [("cancel_order", {"order_id": guessed}, {"status": "cancelled"}, None)],
        "order_cancellation",
        at,
    )
    feedback_record(
        {"trace_id": trace.pk, "kind": "thumbs", "value": False, "key": f"fb-{trace.pk}"}
    )
    return trace


def flight_ok(project, rng, at):
    search = ("search_flights", {"from": "LIS", "to": "BER", "date": "2027-03-14"}, {}, None)
    steps = [search] * rng.choice([1, 1, 2])  # a second search with the same input, sometimes
    steps += [
        ("get_fare_rules", {"fare": "LH1167-Y"}, {"refundable": False}, None),
        ("book_flight", {"flight": "LH1167"}, {"booking": "PNR7Q2"}, None),
    ]
    return _trace(
        project,
        rng.choice(FLIGHT_ASKS),
        "Booked LH1167 on 14 March, 89 EUR, booking reference PNR7Q2.",
        steps,
        "flight_booking",
        at,
    )


def bug_fix(project, rng, at):
    steps = [
        ("run_tests", {"path": "utils"}, {"failed": 1}, None),
        ("read_file", {"path": "utils/dates.py"}, {"text": "def parse_dates(...)"}, None),
        ("edit_file", {"path": "utils/dates.py", "patch": "..."}, {"ok": True}, None),
        ("run_tests", {"path": "utils"}, {"failed": 0}, None),
    ]
    return _trace(
        project,
        rng.choice(BUG_ASKS),
        "Fixed: parse_dates now accepts ISO week dates; all tests pass.",
        steps,
        "bug_fix",
        at,
    )


def topic_world(per_kind: int = 8, failures: int = 6, seed: int = 7, project=None):
    """Traces of four kinds over the last 14 days; the planted failures are the newest."""
    project = project or ProjectFactory(slug="shop", name="Shop agents")
    rng = random.Random(seed)
    now = timezone.now()
    traces = {"cancel_ok": [], "flight": [], "bug": [], "planted": []}
    for index in range(per_kind):
        at = now - timedelta(days=14) + timedelta(hours=index * 13 * 24 / per_kind)
        traces["cancel_ok"].append(cancel_ok(project, rng, at))
        traces["flight"].append(flight_ok(project, rng, at + timedelta(minutes=5)))
        traces["bug"].append(bug_fix(project, rng, at + timedelta(minutes=9)))
    for index in range(failures):
        at = now - timedelta(days=3) + timedelta(hours=index * 6)
        traces["planted"].append(cancel_without_lookup(project, rng, at))
    return project, traces
