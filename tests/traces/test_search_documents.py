"""Search documents: built once spans go quiet, rebuilt after late spans, untouched by re-sends."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import ProjectFactory, SpanFactory, TraceFactory
from tests.traces.test_ingest_otlp import recorded_spans, send
from tests.traces.test_ingest_span_tree import refund_tree
from traces.filters import TraceFilter
from traces.ingest.services import ingest_span_tree
from traces.models import Trace, TraceAttributeValue, TraceSearchDocument
from traces.search.documents import (
    DOCUMENT_CHARS,
    search_documents_build,
    search_documents_stale_ids,
)
from traces.tasks import search_documents_refresh_task

pytestmark = pytest.mark.django_db


def later(seconds=60):
    return timezone.now() + timedelta(seconds=seconds)


def matching(**params) -> set[int]:
    trace_filter = TraceFilter(params, queryset=Trace.objects.all())
    assert trace_filter.is_valid(), trace_filter.errors
    return set(trace_filter.qs.values_list("pk", flat=True))


def test_a_trace_is_built_once_its_spans_are_quiet(settings):
    # given a trace that has just received its spans
    settings.SEARCH_INDEX_QUIET_SECONDS = 5
    trace = ingest_span_tree(ProjectFactory(), refund_tree())
    # then it waits while spans may still come, and is due once they have been quiet
    assert search_documents_stale_ids() == []
    assert search_documents_stale_ids(now=later()) == [trace.pk]
    # when built
    assert search_documents_build([trace.pk]) == 1
    # then it is no longer stale and every part of it can be found
    assert search_documents_stale_ids(now=later()) == []
    for words in ("arrived broken", "refunded", "PaymentGatewayTimeout", "delivered", "A1042"):
        assert matching(search=words) == {trace.pk}, words
    assert matching(search="hotel") == set()


def test_a_late_span_makes_the_document_stale_and_a_resend_does_not():
    # given an OTLP trace whose last tool span arrives after the document was built
    spans = recorded_spans()
    last_tool = next(s for s in spans if s.name == "execute_tool send_confirmation_email")
    send([s for s in spans if s is not last_tool])
    trace = Trace.objects.get()
    search_documents_build(search_documents_stale_ids(now=later()))
    assert matching(attr="gen_ai.tool.name = send_confirmation_email") == set()
    # when the late span comes
    send([last_tool])
    # then the trace is due again, and after the rebuild the late span is found
    assert search_documents_stale_ids(now=later()) == [trace.pk]
    search_documents_build([trace.pk])
    assert matching(attr="gen_ai.tool.name = send_confirmation_email") == {trace.pk}
    assert matching(search="traveller@example.com") == {trace.pk}
    # when the whole trace is sent again, nothing becomes due
    send(spans)
    assert search_documents_stale_ids(now=later()) == []


def test_attribute_values_are_distinct_scalars_with_numbers_for_ranges():
    # given spans with nested, listed, long and numeric-string attributes
    trace = TraceFactory(last_span_received_at=None)
    SpanFactory(
        trace=trace,
        attributes={
            "gen_ai.usage.input_tokens": 1500,
            "retry": {"count": "3", "codes": [503, 503, 429]},
            "flag": True,
            "prompt": "x" * 500,
        },
    )
    SpanFactory(trace=trace, attributes={"gen_ai.usage.input_tokens": 1500}, input_tokens=1500)
    # when
    search_documents_build([trace.pk])
    # then
    rows = set(
        TraceAttributeValue.objects.filter(trace=trace).values_list(
            "key", "value_text", "value_number"
        )
    )
    assert {
        ("gen_ai.usage.input_tokens", "1500", 1500.0),
        ("retry.count", "3", 3.0),
        ("retry.codes", "503", 503.0),
        ("retry.codes", "429", 429.0),
        ("flag", "true", None),
    } <= rows
    assert not any(key == "prompt" for key, _, _ in rows)
    assert sum(key == "gen_ai.usage.input_tokens" for key, _, _ in rows) == 1


def test_span_columns_are_filterable_under_their_open_telemetry_names():
    # given a span-tree trace whose model span carries tokens and model as attributes and a
    # transcript-like span that has them only in columns
    trace = TraceFactory(last_span_received_at=None)
    SpanFactory(trace=trace, kind="llm", model="claude-haiku-4-5", input_tokens=2400, attributes={})
    search_documents_build([trace.pk])

    assert matching(attr="gen_ai.usage.input_tokens >= 2400") == {trace.pk}
    assert matching(attr="gen_ai.request.model = claude-haiku-4-5") == {trace.pk}
    assert matching(attr="span.kind = llm; gen_ai.usage.input_tokens < 2400") == set()


def test_a_huge_deeply_nested_value_is_capped_not_failed():
    # given an input nested as deep as JSON storage allows, and a very long output
    deep = "bottom"
    for _ in range(400):
        deep = {"next": deep}
    trace = TraceFactory(last_span_received_at=None)
    SpanFactory(trace=trace, input=deep, output="needle " + "hay " * (DOCUMENT_CHARS // 2))
    # when
    search_documents_build([trace.pk])
    # then the document exists and holds what came first
    assert TraceSearchDocument.objects.filter(trace=trace).exists()
    assert matching(search="bottom") == {trace.pk}
    assert matching(search="needle") == {trace.pk}


def test_rebuilding_replaces_rows_rather_than_adding_to_them():
    trace = TraceFactory(last_span_received_at=None)
    SpanFactory(trace=trace, attributes={"region": "eu-west-1"})
    search_documents_build([trace.pk])
    search_documents_build([trace.pk])

    assert TraceAttributeValue.objects.filter(trace=trace, key="region").count() == 1
    assert matching(search="eu-west-1") == {trace.pk}


def test_a_deleted_trace_leaves_nothing_that_matches():
    trace = TraceFactory(last_span_received_at=None)
    SpanFactory(trace=trace, output="zebra crossing")
    search_documents_build([trace.pk])
    trace.delete()
    kept = TraceFactory(last_span_received_at=None)
    search_documents_build([kept.pk])

    assert matching(search="zebra") == set()
    assert (
        TraceAttributeValue.objects.count()
        == TraceAttributeValue.objects.filter(trace=kept).count()
    )


def test_the_periodic_task_builds_every_due_trace(settings):
    settings.SEARCH_INDEX_QUIET_SECONDS = 0
    project = ProjectFactory()
    first = ingest_span_tree(project, refund_tree())
    second = ingest_span_tree(project, refund_tree(trace_id="1" * 32, input="Book Porto"))

    assert search_documents_refresh_task() == 2
    assert matching(search="porto") == {second.pk}
    assert matching(search="broken") == {first.pk}
    assert search_documents_refresh_task() == 0


def test_the_frequent_sweep_looks_at_recent_traces_and_the_hourly_one_at_all():
    # given an old trace whose late span came after its document was built
    old = TraceFactory(last_span_received_at=timezone.now() - timedelta(minutes=5))
    Trace.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(hours=3))
    search_documents_build([old.pk])
    Trace.objects.filter(pk=old.pk).update(last_span_received_at=timezone.now())
    recent = TraceFactory(last_span_received_at=timezone.now() - timedelta(minutes=5))
    # then the frequent sweep finds only the recent trace, the hourly one both
    within = timedelta(hours=1)
    assert search_documents_stale_ids(now=later(), created_within=within) == [recent.pk]
    assert set(search_documents_stale_ids(now=later())) == {old.pk, recent.pk}
