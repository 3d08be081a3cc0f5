"""ingest_otlp: spans of one trace in several requests, in any order, sent more than once."""

import random
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.traces import otel_agents
from traces.ingest.otlp_wire import time_from_nanos
from traces.ingest.services import ingest_otlp
from traces.ingest.span_logs import pending_logs_known
from traces.models import Project, Session, Span, Trace
from traces.project_cache import projects_by_slug
from traces.projects import project_resolve
from traces.signals import spans_ingested

pytestmark = pytest.mark.django_db
PROTOBUF = "application/x-protobuf"


def recorded_spans(runs=1):
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "travel"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    for run in range(runs):
        otel_agents.travel_agent_run(otel_agents.tracer_for(provider), run=run)
    return list(memory.get_finished_spans())


def send(spans):
    return ingest_otlp(body=encode_spans(spans).SerializeToString(), content_type=PROTOBUF)


def test_span_times_keep_the_microseconds_the_sender_gave():
    # given nanoseconds whose seconds, as a float, would round the microsecond up
    nanos = 1_700_000_000_123_456_789
    # then the time is cut to the microsecond, as PostgreSQL stores it, not rounded
    assert time_from_nanos(nanos) == datetime(2023, 11, 14, 22, 13, 20, 123456, tzinfo=UTC)
    assert time_from_nanos(0) is None


def test_span_times_are_the_exact_microsecond_across_the_years():
    # given nanoseconds from 1970 to the year 2554 (OTLP's whole fixed64 range)
    rng = random.Random(18)
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    samples = [rng.randrange(1, 2**64) for _ in range(5_000)]
    samples += [rng.randrange(1, 4_300_000_000 * 10**9) for _ in range(20_000)]
    # then each is the whole microsecond counted from the epoch
    wrong = [n for n in samples if time_from_nanos(n) != epoch + timedelta(microseconds=n // 1000)]
    assert wrong == []


def test_root_first_then_children_in_reverse_gives_the_same_tree():
    # given the root span sent first, then the children newest first in three requests
    spans = recorded_spans()
    root, children = spans[-1], spans[:-1][::-1]
    # when
    send([root])
    for chunk in (children[:3], children[3:7], children[7:]):
        send(chunk)
    # then
    trace = Trace.objects.get()
    assert trace.span_count == 11
    assert trace.task == otel_agents.TRAVEL_TASK
    assert trace.final_answer == otel_agents.TRAVEL_ANSWER
    ordered = list(trace.spans.order_by("position"))
    assert [s.position for s in ordered] == list(range(11))
    assert ordered[0].parent_span_id == ""
    assert all(ordered[i].started_at <= ordered[i + 1].started_at for i in range(10))


def test_root_last_still_sets_task_and_answer():
    # given the children in one request, the root alone afterwards
    spans = recorded_spans()
    send(spans[:-1])
    assert Trace.objects.get().final_answer == ""
    # when
    send(spans[-1:])
    # then
    trace = Trace.objects.get()
    assert trace.final_answer == otel_agents.TRAVEL_ANSWER
    assert trace.task == otel_agents.TRAVEL_TASK
    assert trace.root_span_id == spans[-1].context.span_id.to_bytes(8, "big").hex()


def test_resent_spans_change_nothing():
    # given
    spans = recorded_spans()
    send(spans)
    before = list(Span.objects.order_by("pk").values())
    # when
    result = send(spans[2:9])
    # then
    assert result.duplicate_count == 7 and result.stored_count == 0
    assert list(Span.objects.order_by("pk").values()) == before
    assert Trace.objects.get().span_count == 11


def test_a_span_sent_twice_in_one_request_is_stored_once_and_said_so():
    spans = recorded_spans()

    result = send(spans + spans[:2])

    assert (result.stored_count, result.repeated_count, result.rejected_count) == (11, 2, 0)
    assert result.duplicate_count == 0
    assert "2 spans were sent twice in this request" in result.warning
    assert "already stored" not in result.warning


def test_a_conflicting_span_id_in_one_request_is_rejected_not_called_already_stored(client):
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceResponse,
    )

    from tests.factories import UserFactory

    spans = recorded_spans()
    request = encode_spans(spans)
    scope = request.resource_spans[0].scope_spans[0]
    impostor = scope.spans.add()
    impostor.CopyFrom(scope.spans[0])
    impostor.name = "something else entirely"
    client.force_login(UserFactory(roles=["annotator"]))

    response = client.post(
        "/v1/traces", request.SerializeToString(), content_type="application/x-protobuf"
    )

    answer = ExportTraceServiceResponse.FromString(response.content)
    assert response.status_code == 200 and answer.partial_success.rejected_spans == 1
    assert "different content" in answer.partial_success.error_message
    assert "already stored" not in answer.partial_success.error_message
    kept = Span.objects.get(span_id=scope.spans[0].span_id.hex())
    assert kept.name == scope.spans[0].name != "something else entirely"


def test_spans_ingested_is_sent_with_the_trace_ids():
    # given
    seen = []

    def receiver(sender, trace_ids, **kwargs):
        seen.append(list(trace_ids))

    spans_ingested.connect(receiver, weak=False)
    try:
        send(recorded_spans())
    finally:
        spans_ingested.disconnect(receiver)
    # then
    assert seen == [[Trace.objects.get().pk]]


def test_new_spans_make_their_trace_and_session_verdicts_stale_and_a_resend_does_not():
    # given a judged trace of a conversation (all but one span of it), and one of another
    from judges.models import Verdict
    from tests.factories import VerdictFactory

    spans = recorded_spans()
    send(spans[1:])
    first = Trace.objects.get()
    on_trace = VerdictFactory(trace=first)
    on_session = VerdictFactory(trace=first, session=first.session)
    elsewhere = VerdictFactory()
    # when the same spans are sent again, nothing is news
    send(spans[1:])
    assert not Verdict.objects.filter(stale=True).exists()
    # when another trace of the same conversation arrives
    send(recorded_spans())
    # then the session's verdict saw less than the session has now; the first trace's did not
    assert set(Verdict.objects.filter(stale=True).values_list("pk", flat=True)) == {on_session.pk}
    # and the first trace's late span makes its own verdict stale, no other
    send(spans[:1])
    assert set(Verdict.objects.filter(stale=True).values_list("pk", flat=True)) == {
        on_session.pk,
        on_trace.pk,
    }
    assert elsewhere.session_id is None


def test_query_count_does_not_grow_with_traces_in_a_request():
    # given 1 trace and 20 traces (220 spans)
    one, twenty = recorded_spans(1), recorded_spans(20)
    Project.objects.create(slug="default", name="Default")
    pending_logs_known.clear()
    # when
    with CaptureQueriesContext(connection) as one_q:
        send(one)
    Span.objects.all().delete()
    Trace.objects.all().delete()
    # so the second request, like the first, makes its sessions instead of adding to one
    Session.objects.all().delete()
    projects_by_slug.clear()  # both requests read their project
    pending_logs_known.clear()  # and whether it has log records waiting
    with CaptureQueriesContext(connection) as many_q:
        send(twenty)

    # then only SQLite's parameter cap splits the span INSERT
    # The project's masking rules are read by the first request and remembered for seconds.
    def others(ctx):
        return [
            q["sql"]
            for q in ctx.captured_queries
            if '"traces_span"' not in q["sql"][:40] and '"traces_maskingrule"' not in q["sql"][:40]
        ]

    assert len(others(many_q)) == len(others(one_q))
    assert len(many_q) <= len(one_q) + 10
    assert Trace.objects.count() == 20 and Span.objects.count() == 220


def test_a_project_is_remembered_only_once_committed_and_read_afresh_once_saved():
    # given a request that starts project "shop" and then fails: its project is rolled back
    spans = recorded_spans()
    with pytest.raises(RuntimeError), transaction.atomic():
        project_resolve(named="shop", remembered=True)
        raise RuntimeError("the rest of the request failed")
    assert not Project.objects.filter(slug="shop").exists()
    # when the exporter sends again, the project is made anew and its spans stored
    ingest_otlp(
        body=encode_spans(spans).SerializeToString(), content_type=PROTOBUF, project_slug="shop"
    )
    shop = Project.objects.get(slug="shop")
    assert Trace.objects.get().project == shop
    # and a curator's change to it counts from the next request
    assert project_resolve(named="shop", remembered=True).tool_error_markers == []
    shop.tool_error_markers = ["DECLINED"]
    shop.save()
    assert project_resolve(named="shop", remembered=True).tool_error_markers == ["DECLINED"]
    # and a project read once is not read again within the interval
    with CaptureQueriesContext(connection) as queries:
        mine = project_resolve(named="shop", remembered=True)
    assert not queries.captured_queries
    with CaptureQueriesContext(connection) as queries:
        project_resolve(named="shop")
    assert queries.captured_queries  # callers that do not store again read it every time
    # and each caller gets its own copy, to cache related rows on without the next one seeing
    mine.held_by_first_caller = True
    assert not hasattr(project_resolve(named="shop", remembered=True), "held_by_first_caller")


@pytest.mark.django_db(transaction=True)
def test_a_remembered_project_deleted_by_another_process_is_made_again_and_nothing_is_lost():
    # given project "shop" remembered by this process, then deleted by another (no signal here)
    project_resolve(named="shop", remembered=True)
    remembered = project_resolve(named="shop", remembered=True)
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM traces_project WHERE id = %s", [remembered.pk])
    # when an export names it
    result = ingest_otlp(
        body=encode_spans(recorded_spans()).SerializeToString(),
        content_type=PROTOBUF,
        project_slug="shop",
    )
    # then the project is made again and every span stored under it
    shop = Project.objects.get(slug="shop")
    assert shop.pk != remembered.pk
    assert result.stored_count == 11 == Span.objects.filter(trace__project=shop).count()


def _export_of(spans: list[tuple[str, int]]) -> bytes:
    """An export request of one trace whose spans are (name, start in ns; 0: untimed)."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    request = ExportTraceServiceRequest()
    scope = request.resource_spans.add().scope_spans.add()
    for index, (name, start) in enumerate(spans, start=1):
        span = scope.spans.add(name=name, trace_id=b"\x07" * 16, span_id=bytes([index]) * 8)
        span.start_time_unix_nano = start
        span.end_time_unix_nano = start + 1000 if start else 0
    return request.SerializeToString()


@pytest.mark.parametrize(
    ("sent", "expected"),
    [
        # timed spans by start time, then untimed ones in the order they came
        ([("c", 3 * 10**18), ("x", 0), ("a", 1 * 10**18), ("y", 0)], ["a", "c", "x", "y"]),
        ([("x", 0), ("y", 0), ("z", 0)], ["x", "y", "z"]),
        ([("b", 2 * 10**18), ("a", 1 * 10**18)], ["a", "b"]),
    ],
)
def test_spans_are_placed_by_start_time_and_untimed_ones_last_in_arrival_order(sent, expected):
    ingest_otlp(body=_export_of(sent), content_type=PROTOBUF)
    placed = Span.objects.order_by("position").values_list("name", "position")
    assert list(placed) == [(name, i) for i, name in enumerate(expected)]
