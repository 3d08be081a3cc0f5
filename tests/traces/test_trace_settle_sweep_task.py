"""trace_settle_sweep_task sends trace_completed once per trace, after it settles."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import ProjectFactory
from traces.ingest.services import ingest_span_tree
from traces.ingest.span_tree import span_tree_records
from traces.ingest.store import spans_store
from traces.models import SourceFormat, Trace
from traces.signals import trace_completed
from traces.tasks import trace_settle_sweep_task

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def settle_time(settings):
    settings.TRACE_SETTLE_SECONDS = 30


@pytest.fixture
def received():
    calls = []

    def receiver(sender, trace, **kwargs):
        calls.append(trace.pk)

    trace_completed.connect(receiver, weak=False)
    yield calls
    trace_completed.disconnect(receiver)


def tree(trace_id, with_root_end=True):
    node = {
        "trace_id": trace_id,
        "name": "invoke_agent support",
        "type": "agent",
        "input": "Where is order A1042?",
        "output": "In transit.",
        "start_time": "2026-11-20T10:00:00Z",
        "children": [
            {
                "name": "get_order_status",
                "type": "tool",
                "input": {"order_id": "A1042"},
                "output": {"status": "in transit"},
                "start_time": "2026-11-20T10:00:01Z",
                "end_time": "2026-11-20T10:00:02Z",
            }
        ],
    }
    if with_root_end:
        node["end_time"] = "2026-11-20T10:00:03Z"
    return node


def spans_send(project, payload) -> Trace:
    """Store a tree's spans the way OTLP exports arrive: with no word on whether more follow."""
    records, extras, external_id = span_tree_records(payload)
    return spans_store(project, records, SourceFormat.OTLP, {external_id: extras})[external_id]


def orphan_stored(trace_id, **times) -> Trace:
    """Only a child span of the trace arrived; its parent is not stored."""
    orphan = {
        "trace_id": trace_id,
        "name": "get_order_status",
        "type": "tool",
        "parent_span_id": "00f067aa0ba902b7",
        **times,
    }
    return ingest_span_tree(ProjectFactory(), orphan)


def age(trace, seconds):
    Trace.objects.filter(pk=trace.pk).update(
        last_span_received_at=timezone.now() - timedelta(seconds=seconds)
    )


def test_settled_trace_completes_once(received):
    # given a trace whose last span came longer ago than the settle time
    trace = spans_send(ProjectFactory(), tree("a" * 32))
    age(trace, 31)
    # when the sweep runs twice
    first = trace_settle_sweep_task()
    second = trace_settle_sweep_task()
    # then
    assert (first, second) == (1, 0)
    assert received == [trace.pk]
    assert Trace.objects.get(pk=trace.pk).completed_at is not None


def test_trace_still_receiving_spans_waits(received):
    trace = spans_send(ProjectFactory(), tree("b" * 32))
    age(trace, 5)
    assert trace_settle_sweep_task() == 0
    assert received == []


def test_trace_without_its_root_waits(received):
    # given only a child span arrived (its parent is not stored)
    trace = orphan_stored(
        "c" * 32, start_time="2026-11-20T10:00:01Z", end_time="2026-11-20T10:00:02Z"
    )
    age(trace, 60)
    # when / then
    assert trace_settle_sweep_task() == 0
    assert received == []


def test_trace_without_its_root_completes_after_ten_settle_times(received):
    trace = orphan_stored("d" * 32)
    age(trace, 299)
    assert trace_settle_sweep_task() == 0
    age(trace, 301)
    assert trace_settle_sweep_task() == 1
    assert received == [trace.pk]


def test_resent_spans_do_not_hold_back_completion(received):
    trace = spans_send(ProjectFactory(), tree("e" * 32))
    age(trace, 31)
    spans_send(ProjectFactory(), tree("e" * 32))
    assert trace_settle_sweep_task() == 1


def test_a_whole_tree_posted_at_once_completes_on_arrival(received):
    trace = ingest_span_tree(ProjectFactory(), tree("f" * 32))
    assert received == [trace.pk]
    assert trace_settle_sweep_task() == 0
    ingest_span_tree(ProjectFactory(), tree("f" * 32))
    assert received == [trace.pk]


def test_a_trace_whose_root_never_arrives_completes_later_marked_root_missing(received):
    from django.test import Client

    from tests.factories import UserFactory
    from tests.traces.test_ingest_otlp import recorded_spans, send

    send(recorded_spans()[:-1])  # every span but the root
    trace = Trace.objects.get()
    age(trace, 30 * 5)
    trace_settle_sweep_task()
    assert received == []  # a settle time is not enough without a root

    age(trace, 30 * 11)
    trace_settle_sweep_task()

    assert received == [trace.pk]
    web = Client()
    web.force_login(UserFactory(roles=["annotator"]))
    page = web.get(f"/traces/{trace.pk}/").content.decode()
    assert 'id="root-missing"' in page and "never arrived" in page
