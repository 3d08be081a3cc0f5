"""A span's attributes, input and output are JSON text on PostgreSQL (core.fields.JSONTextField):
written by COPY and by the ORM, read back as the values they were, in the order they were
written, and still filtered by key."""

import pytest
from django.db import connection

from tests.factories import ProjectFactory, SpanFactory
from tests.traces.test_ingest_span_tree import refund_tree
from traces.ingest.services import ingest_span_tree
from traces.models import Span

pytestmark = pytest.mark.django_db
on_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="jsonb and text differ on PostgreSQL only"
)
# jsonb would store these keys shortest first ("at" before "city"): text keeps them as sent.
ARGUMENTS = {"city": "Lisbon", "at": "2026-12-01", "nights": 3, "flexible": True}


def _stored_text(span: Span) -> tuple[str | None, str | None, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT input, output, attributes FROM traces_span WHERE id = %s", [span.pk])
        return cursor.fetchone()


@on_postgresql
def test_the_columns_are_text():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_name = 'traces_span' AND column_name IN ('attributes', 'input', 'output')"
        )
        assert dict(cursor.fetchall()) == {"attributes": "text", "input": "text", "output": "text"}


@on_postgresql
def test_ingested_content_is_stored_as_the_json_it_was_and_read_back_in_its_order():
    # given a tool call whose arguments are not in jsonb's key order, and a text result
    tree = refund_tree()
    tool = tree["children"][1]
    tool["input"], tool["output"] = ARGUMENTS, "Booked: room 412"
    tool["attributes"] = {"tool.version": "3", "agent.step_index": 2}
    # when the tree is ingested (COPY)
    trace = ingest_span_tree(ProjectFactory(), tree)
    span = trace.spans.get(name=tool["name"])
    # then the columns hold the JSON as written, and the ORM reads the same values back
    stored_input, stored_output, stored_attributes = _stored_text(span)
    assert stored_input == '{"city":"Lisbon","at":"2026-12-01","nights":3,"flexible":true}'
    assert stored_output == '"Booked: room 412"'
    assert stored_attributes.startswith('{"tool.version":"3","agent.step_index":2')
    assert list(span.input) == ["city", "at", "nights", "flexible"]
    assert span.attributes["tool.version"] == "3"
    assert span.input == ARGUMENTS
    assert span.output == "Booked: room 412"


@pytest.mark.parametrize(
    "value", [ARGUMENTS, [1, "two", {"three": 3.5}], "plain text", 42, False, {"nul": "a\x00b"}]
)
def test_every_json_value_round_trips_through_the_orm(value):
    span = SpanFactory(input=value, output=None)
    span.refresh_from_db()
    assert span.input == value
    assert span.output is None
    assert Span.objects.filter(pk=span.pk, output__isnull=True, input__isnull=False).exists()


def test_spans_are_filtered_by_an_attribute_key_and_a_nested_one():
    wanted = SpanFactory(attributes={"evalsite.eval_run": "nightly-7", "tool": {"name": "book"}})
    SpanFactory(attributes={"evalsite.eval_run": "nightly-8", "tool": {"name": "search"}})
    SpanFactory(attributes={})
    assert list(Span.objects.filter(**{"attributes__evalsite.eval_run": "nightly-7"})) == [wanted]
    assert list(Span.objects.filter(attributes__tool__name="book")) == [wanted]
    assert Span.objects.filter(**{"attributes__evalsite.eval_run__isnull": False}).count() == 2
