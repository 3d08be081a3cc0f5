"""A session's totals are kept at ingest: out-of-order arrival and re-sends count each trace
once, late spans add only what they change, and a recount from the traces agrees."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from tests.factories import GoldenExampleFactory
from traces.ingest.services import ingest_span_tree
from traces.ingest.span_tree import span_tree_records
from traces.ingest.store import spans_store
from traces.models import Project, Session, SourceFormat, Trace
from traces.retention import project_traces_expire
from traces.session_totals import sessions_totals_recount

pytestmark = pytest.mark.django_db

TOTALS = (
    "trace_count",
    "error_count",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "first_started_at",
    "last_trace_at",
    "first_task",
    "held_out_trace_count",
)


def tree(trace_id, minute, *, task="", failed=False, session="conv-1", children=()):
    """A root agent span at 10:<minute> lasting 30 s, with one model call, in a session."""
    start = f"2026-11-20T10:{minute:02d}:00Z"
    return {
        "trace_id": trace_id * 32,
        "span_id": f"{trace_id * 15}1",
        "name": "invoke_agent",
        "type": "agent",
        "input": task,
        "output": "done",
        "start_time": start,
        "end_time": f"2026-11-20T10:{minute:02d}:30Z",
        "context": {"session_id": session} if session else {},
        "children": [
            {
                "span_id": f"{trace_id * 15}2",
                "name": "chat",
                "type": "llm",
                "start_time": start,
                "end_time": f"2026-11-20T10:{minute:02d}:10Z",
                "usage": {"input_tokens": 100, "output_tokens": 10},
                "status": "error" if failed else "ok",
            },
            *children,
        ],
    }


def totals(session: Session) -> dict:
    session.refresh_from_db()
    return {name: getattr(session, name) for name in TOTALS}


def recounted(session: Session) -> dict:
    sessions_totals_recount([session.pk])
    return totals(session)


@pytest.fixture
def project():
    return Project.objects.create(slug="support", name="Support")


def at(minute: int, second: int = 0):
    return datetime(2026, 11, 20, 10, minute, second, tzinfo=UTC)


def test_traces_arriving_out_of_order_are_counted_once_each(project):
    # given the later exchange sent first, then the earlier one
    ingest_span_tree(project, tree("b", 5, task="And the refund?", failed=True))
    ingest_span_tree(project, tree("a", 1, task="Cancel order A1042"))
    session = Session.objects.get()
    # then
    kept = totals(session)
    assert kept == {
        "trace_count": 2,
        "error_count": 1,
        "input_tokens": 200,
        "output_tokens": 20,
        "cost_usd": Decimal(0),
        "first_started_at": at(1),
        "last_trace_at": at(5, 30),
        "first_task": "Cancel order A1042",
        "held_out_trace_count": 0,
    }
    assert recounted(session) == kept


def test_a_re_sent_trace_changes_nothing(project):
    # given
    ingest_span_tree(project, tree("a", 1, task="Cancel order A1042", failed=True))
    session = Session.objects.get()
    before = totals(session)
    received = session.last_received_at
    # when the same spans come again, twice
    ingest_span_tree(project, tree("a", 1, task="Cancel order A1042", failed=True))
    ingest_span_tree(project, tree("a", 1, task="Cancel order A1042", failed=True))
    # then nothing changes, not even the time of the session's last activity
    assert totals(session) == before
    assert session.last_received_at == received is not None
    assert before["trace_count"] == 1 and before["error_count"] == 1


def test_late_spans_add_only_what_they_change(project):
    # given one trace of the session stored
    ingest_span_tree(project, tree("a", 3, task="Cancel order A1042"))
    session = Session.objects.get()
    # when a failed tool call of the same trace arrives later, starting before the root
    late = {
        "span_id": "a" * 15 + "3",
        "name": "cancel_order",
        "type": "tool",
        "start_time": "2026-11-20T10:02:00Z",
        "end_time": "2026-11-20T10:07:00Z",
        "status": "error",
    }
    ingest_span_tree(project, tree("a", 3, task="Cancel order A1042", children=[late]))
    # then the trace still counts once, with its new error and its wider time range
    kept = totals(session)
    assert (kept["trace_count"], kept["error_count"], kept["input_tokens"]) == (1, 1, 100)
    assert (kept["first_started_at"], kept["last_trace_at"]) == (at(2), at(7))
    assert recounted(session) == kept


def test_a_trace_moved_into_the_session_by_a_late_span_counts_there_only(project):
    # given a trace sent without a session id, and one with
    ingest_span_tree(project, tree("a", 1, task="Cancel order A1042", session=""))
    ingest_span_tree(project, tree("b", 5, task="And the refund?", session="conv-1"))
    session = Session.objects.get()
    assert totals(session)["trace_count"] == 1
    # when a later request names the session for the first trace
    ingest_span_tree(project, tree("a", 1, task="Cancel order A1042", session="conv-1"))
    # then
    kept = totals(session)
    assert (kept["trace_count"], kept["first_task"]) == (2, "Cancel order A1042")
    assert recounted(session) == kept


def test_a_trace_that_moves_to_another_session_leaves_the_first(project):
    ingest_span_tree(project, tree("a", 1, task="Cancel", session="conv-1"))
    ingest_span_tree(project, tree("b", 2, task="Refund", session="conv-1"))
    # when a later request names another session for trace b
    ingest_span_tree(project, tree("b", 2, task="Refund", session="conv-2"))
    first, second = Session.objects.order_by("external_id")
    assert (totals(first)["trace_count"], totals(first)["last_trace_at"]) == (1, at(1, 30))
    assert (totals(second)["trace_count"], totals(second)["first_task"]) == (1, "Refund")


def test_a_held_out_trace_is_counted_as_such_and_removal_recounts(project):
    ingest_span_tree(project, tree("a", 1, task="Cancel"))
    ingest_span_tree(project, tree("b", 2, task="Refund", failed=True))
    session = Session.objects.get()
    second = Trace.objects.get(external_id="b" * 32)
    # when trace b backs a held-out golden example
    GoldenExampleFactory(source_trace=second, held_out=True)
    # then
    assert totals(session)["held_out_trace_count"] == 1
    # and when retention removes trace a, the session counts trace b alone
    project.retention_days = 1
    project.save(update_fields=["retention_days"])
    # (trace b stays: a golden example was made from it)
    Trace.objects.update(created_at=timezone.now() - timedelta(days=3))
    assert project_traces_expire(project, limit=10) == 1
    kept = totals(session)
    assert (kept["trace_count"], kept["error_count"], kept["first_task"]) == (1, 1, "Refund")


def test_a_session_made_by_one_request_of_several_traces_agrees_with_a_recount(project):
    # given three traces of one new session in one request, sent latest first
    records, extras = [], {}
    for trace_id, minute, task in (("c", 9, "third"), ("b", 7, ""), ("a", 5, "first")):
        found, extra, external_id = span_tree_records(
            tree(trace_id, minute, task=task, failed=trace_id == "b")
        )
        records += found
        extras[external_id] = extra
    # when they are stored together
    spans_store(project, records, SourceFormat.SPAN_TREE, extras)
    # then the session was made with all three counted, as a recount finds them
    session = Session.objects.get()
    made = totals(session)
    assert made["trace_count"] == 3 and made["error_count"] == 1
    assert made["first_task"] == "first"
    assert made["first_started_at"] == at(5) and made["last_trace_at"] == at(9, 30)
    assert made == recounted(session)


SESSION_STARTS = [
    {},
    {"first_started_at": datetime(2026, 11, 20, 9, 0, tzinfo=UTC), "first_task": "kept"},
    {"first_started_at": datetime(2026, 11, 20, 11, 0, tzinfo=UTC), "first_task": "later"},
    {"first_task": "untimed before"},
]


@pytest.mark.parametrize("start", SESSION_STARTS)
@pytest.mark.parametrize("timed", [True, False])
def test_one_statement_adds_what_the_rows_one_by_one_add(start, timed):
    # given two sessions alike, and a request's traces of each: timed ones with a tie for the
    # earliest start, untimed ones with and without a task, a stored trace that grew
    from traces.session_totals import TraceTotals, session_totals_add, session_totals_rows
    from traces.sql import session_totals_rows_add_each

    project = Project.objects.create(slug="p", name="P")
    one, other = (
        Session.objects.create(project=project, external_id=name, trace_count=1, **start)
        for name in ("one", "other")
    )
    at = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)

    def traces(session):
        made = {
            "late": TraceTotals(session.pk, 1, 10, 1, Decimal("0.5"), at, at, "late"),
            "tie-1": TraceTotals(
                session.pk,
                0,
                5,
                5,
                Decimal("0.1"),
                at - timedelta(hours=1),
                None,
                "first of the tie",
            ),
            "tie-2": TraceTotals(
                session.pk,
                2,
                5,
                5,
                Decimal("0.1"),
                at - timedelta(hours=1),
                at + timedelta(hours=2),
                "second of the tie",
                held_out=True,
            ),
            "blank": TraceTotals(session.pk, 0, 1, 1, Decimal(0), task=""),
            "untimed": TraceTotals(session.pk, 1, 1, 1, Decimal(0), task="untimed task"),
            "grown": TraceTotals(session.pk, 3, 20, 2, Decimal("1.25"), at, at, "grown"),
        }
        if not timed:
            made = {key: value for key, value in made.items() if value.started_at is None}
        before = {"grown": made["grown"]._replace(error_count=1, input_tokens=5)} if timed else {}
        return before, made

    now = timezone.now()
    # when one session's are added by one statement, the other's a row at a time
    session_totals_add(*traces(one), now)
    timed_rows, untimed_rows, _ = session_totals_rows(*traces(other), now)
    session_totals_rows_add_each(timed_rows, untimed_rows)
    # then both sessions hold the same totals
    one.refresh_from_db()
    other.refresh_from_db()
    for name in (*TOTALS, "last_received_at"):
        assert getattr(one, name) == getattr(other, name), name
    assert one.trace_count > 1
