"""The span column list has one home (the Span model) that the row builder and the API follow."""

from datetime import UTC, date, datetime
from decimal import Decimal

from traces.api import SpanOut
from traces.ingest.bulk_sql import SPAN_FIELDS, SPAN_FIELDS_FROM_RECORD, span_rows
from traces.ingest.records import SpanRecord
from traces.models import Span


def _record() -> SpanRecord:
    return SpanRecord(
        trace_external_id="t1",
        span_id="s1",
        parent_span_id="p1",
        name="search_flights",
        kind="tool",
        started_at=datetime(2026, 1, 1, 12, 0, tzinfo=UTC),
        ended_at=datetime(2026, 1, 1, 12, 0, 2, tzinfo=UTC),
        input={"to": "LIS"},
        output={"flights": []},
        attributes={"gen_ai.tool.name": "search_flights"},
        status="ok",
        error_message="",
        tool_name="search_flights",
        tool_call_id="call_1",
        model="",
        input_tokens=3,
        output_tokens=5,
        cost_usd=Decimal("0.000100"),
        component="search_flights",
    )


def test_ingest_writes_every_span_column_but_the_key():
    columns = {field.name for field in Span._meta.concrete_fields if not field.primary_key}

    assert set(SPAN_FIELDS) == columns
    assert len(SPAN_FIELDS) == len(columns)


def test_a_row_carries_each_column_under_its_name():
    record = _record()

    day = date(2026, 1, 1)
    (values,) = span_rows([record], trace_pk=7, positions=[4], day=day)
    row = dict(zip(SPAN_FIELDS, values, strict=True))

    assert row["trace"] == 7
    assert row["position"] == 4
    assert row["trace_day"] == day
    assert row["duration_ms"] == 2000
    for name in SPAN_FIELDS_FROM_RECORD:
        assert row[name] == getattr(record, name), name


def test_the_api_answers_with_the_stored_columns_in_model_order():
    assert SpanOut.Meta.fields[:3] == ["span_id", "parent_span_id", "name"]
    assert "trace" not in SpanOut.Meta.fields
    assert "position" not in SpanOut.Meta.fields
    assert "component" not in SpanOut.Meta.fields
    assert set(SpanOut.Meta.fields) == set(SPAN_FIELDS_FROM_RECORD) - {"component"}
