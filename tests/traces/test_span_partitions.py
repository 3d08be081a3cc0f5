"""Spans partitioned by day on PostgreSQL: where ingest puts them, partitions made ahead and on
demand, a re-send after a move, and the table rebuilt both ways without losing a row."""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from core.prepared_sql import binding_cursor
from tests.factories import ProjectFactory, SpanFactory, TraceFactory
from tests.traces import otel_agents
from tests.traces.partitions import POSTGRESQL_ONLY
from tests.traces.test_ingest_otlp import recorded_spans, send
from traces import partition_sql, span_partitions
from traces.models import Span, Trace, utc_today
from traces.partition_sql import (
    PARTITION_DAYS_AHEAD,
    partition_name,
    span_partition_days,
    spans_table_convert,
)
from traces.span_partitions import span_partitions_create_ahead, spans_day_move

pytestmark = [pytest.mark.django_db, POSTGRESQL_ONLY]


def _partitions_of(trace: Trace) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT tableoid::regclass::text FROM traces_span WHERE trace_id = %s",
            [trace.pk],
        )
        return {row[0] for row in cursor.fetchall()}


def _exists(name: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [name])
        return cursor.fetchone()[0]


def test_ingest_puts_a_traces_spans_in_the_partition_of_the_day_it_was_received():
    send(recorded_spans())
    trace = Trace.objects.get()
    assert trace.spans_day == utc_today()
    assert set(trace.spans.values_list("trace_day", flat=True)) == {trace.spans_day}
    assert _partitions_of(trace) == {partition_name(trace.spans_day)}


def test_a_day_without_a_partition_gets_one_when_its_first_span_comes(monkeypatch):
    # given a clock a year on, past every partition made ahead
    later = timezone.now() + timedelta(days=365)
    assert not _exists(partition_name(later.date()))
    monkeypatch.setattr(timezone, "now", lambda: later)
    # when
    send(recorded_spans())
    # then
    trace = Trace.objects.get()
    assert trace.spans_day == later.date() and trace.spans.count() == 11
    assert _partitions_of(trace) == {partition_name(later.date())}


def test_partitions_are_made_from_yesterday_to_a_week_ahead():
    today = utc_today() + timedelta(days=1000)
    assert span_partitions_create_ahead(today) == PARTITION_DAYS_AHEAD + 2
    days = span_partition_days()
    assert all(today + timedelta(days=n) in days for n in range(-1, PARTITION_DAYS_AHEAD + 1))
    assert span_partitions_create_ahead(today) == 0


def test_a_span_resent_after_its_trace_moved_day_stays_one_row():
    # given a trace whose spans were moved to another day's partition, as retention does
    spans = recorded_spans()
    send(spans)
    trace = Trace.objects.get()
    later = trace.spans_day + timedelta(days=3)
    spans_day_move([trace.pk], trace.spans_day, later)
    # when every span is sent again, and late ones of the same trace too
    send(spans)
    # then nothing doubled, and all of the trace is still in one partition
    trace.refresh_from_db()
    assert trace.spans_day == later and trace.spans.count() == 11 == trace.span_count
    assert _partitions_of(trace) == {partition_name(later)}


def test_the_spans_table_is_rebuilt_plain_and_partitioned_again_with_every_row():
    # given spans of two days
    old = TraceFactory(project=ProjectFactory())
    Trace.objects.filter(pk=old.pk).update(spans_day=utc_today() - timedelta(days=40))
    old.refresh_from_db()
    spans = [SpanFactory(trace=old, span_id=f"o{n}") for n in range(3)]
    spans += [SpanFactory(span_id=f"n{n}") for n in range(2)]
    before = sorted(Span.objects.values_list("id", "trace_id", "span_id", "trace_day", "output"))
    # when the table is made plain, then partitioned again (the migration, back and forth)
    spans_table_convert(partitioned=False)
    span_partitions._known_days.clear()
    assert not span_partition_days()
    spans_table_convert(partitioned=True)
    # then every row is there, in its day's partition, and new ids follow the old ones
    assert (
        sorted(Span.objects.values_list("id", "trace_id", "span_id", "trace_day", "output"))
        == before
    )
    assert _partitions_of(old) == {partition_name(old.spans_day)}
    assert SpanFactory().pk > max(span.pk for span in spans)


def test_a_resend_reads_and_renumbers_only_its_traces_partition():
    # given a trace stored today, among the partitions made a week ahead
    spans = recorded_spans()
    send(spans[1:])
    trace = Trace.objects.get()
    span_partitions_create_ahead(trace.spans_day)
    # when the rest of the trace comes late, moving stored spans' positions
    sent = []

    def keep(execute, sql, params, many, context):
        sent.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(keep):
        send(spans[:1])
    span_queries = [
        (sql, params)
        for sql, params in sent
        if re.match(r'(SELECT|UPDATE|WITH) .*"traces_span"', sql)
    ]
    # then each of its reads and updates of spans plans only the trace's day
    assert [sql for sql, _ in span_queries if 'UPDATE "traces_span"' in sql]
    others = {partition_name(day) for day in span_partition_days()} - {
        partition_name(trace.spans_day)
    }
    # planned with their values, bound as ingest binds them
    with binding_cursor() as cursor:
        for sql, params in span_queries:
            cursor.execute("EXPLAIN " + sql, params)
            plan = "\n".join(row[0] for row in cursor.fetchall())
            assert partition_name(trace.spans_day) in plan
            assert not [name for name in others if name in plan], sql


def _compression(span: Span, column: str = "attributes") -> str | None:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT pg_column_compression({column}) FROM traces_span WHERE id = %s", [span.pk]
        )
        return cursor.fetchone()[0]


def _storage_options(name: str) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE oid = %s::regclass", [name])
        return cursor.fetchone()[0] or []


def test_a_span_row_up_to_a_page_is_stored_whole_and_a_larger_one_compressed():
    # given a day's partition made on demand, and the table rebuilt plain and back
    later = utc_today() + timedelta(days=400)
    span_partitions.span_partitions_ensure([later])
    assert _storage_options(partition_name(later)) == [partition_sql.SPAN_STORAGE.replace(" ", "")]
    spans_table_convert(partitioned=False)
    assert _storage_options("traces_span") == ["toast_tuple_target=8160"]
    spans_table_convert(partitioned=True)
    # when a span of 3 kB and one of 40 kB are stored
    small = SpanFactory(attributes={"tool.output": "fare 412 EUR; " * 220})
    large = SpanFactory(attributes={"tool.output": "fare 412 EUR; " * 3000})
    # then only the larger one is compressed, with lz4
    assert _compression(small) is None
    assert _compression(large) == "lz4"
    assert all(
        _storage_options(partition_name(day)) == ["toast_tuple_target=8160"]
        for day in span_partition_days()
    )


def _text_compressions() -> set[tuple[str, str, str]]:
    """(table, column, method) of the spans table's and its partitions' text columns."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, a.attname, a.attcompression FROM pg_attribute a "
            "JOIN pg_class c ON c.oid = a.attrelid WHERE a.attname = ANY(%s) "
            "AND (c.oid = 'traces_span'::regclass OR c.oid IN "
            "(SELECT inhrelid FROM pg_inherits WHERE inhparent = 'traces_span'::regclass))",
            [list(partition_sql.SPAN_TEXT_FIELDS)],
        )
        return set(cursor.fetchall())


def test_span_text_is_lz4_on_the_table_every_partition_and_one_made_later():
    # given the migrated table and a partition made on demand since
    later = utc_today() + timedelta(days=300)
    span_partitions.span_partitions_ensure([later])
    # then every text column of every partition compresses with lz4
    methods = _text_compressions()
    assert {table for table, _, _ in methods} >= {"traces_span", partition_name(later)}
    assert len(methods) == len(partition_sql.SPAN_TEXT_FIELDS) * (1 + len(span_partition_days()))
    assert {method for _, _, method in methods} == {"l"}


def test_span_text_compression_goes_back_to_pglz_and_the_table_rebuild_keeps_it():
    # when the migration is reversed, and the table rebuilt plain and back
    assert partition_sql.span_text_compression_set("pglz")
    spans_table_convert(partitioned=False)
    spans_table_convert(partitioned=True)
    # then the table and every partition, old and new, compress with pglz
    assert {method for _, _, method in _text_compressions()} == {"p"}
    # and a method this server lacks changes nothing
    assert not partition_sql.span_text_compression_set("zstd")
    assert {method for _, _, method in _text_compressions()} == {"p"}


def test_a_whole_conversation_on_each_chat_span_is_stored_in_full_and_compressed():
    # given a travel agent's run whose chat spans carry the conversation so far, tool results
    # of 2,700 characters each (the ingest bench's --history --padding 2700)
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "travel"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    otel_agents.travel_agent_run(otel_agents.tracer_for(provider), padding=2700, history=True)
    # when it is sent
    send(list(memory.get_finished_spans()))
    # then the last chat span read every earlier step, the failed call and its retry included
    chats = Span.objects.filter(kind="llm").order_by("position")
    last = chats.last()
    text = str(last.input)
    assert "SeatMapUnavailable: upstream 503" in text
    assert "QX7P2L" in text and "Flight option 1:" in text
    # and the longer conversations are stored compressed, with lz4
    sizes = [len(str(chat.input)) for chat in chats]
    assert sizes == sorted(sizes) and sizes[-1] > 8_000
    assert _compression(last, "input") == "lz4"
