"""Span JSON goes to PostgreSQL through orjson, with the standard library for what it refuses."""

import json

import pytest

from traces.ingest.copy_rows import json_dumps
from traces.ingest.services import ingest_span_tree
from traces.models import Project


def test_ordinary_payloads_are_encoded_by_orjson_and_read_back_the_same():
    value = {"order_id": "A-88213", "items": ["Trail shoes, 42"], "total": 129.0, "note": "é ✓"}

    encoded = json_dumps(value)

    assert isinstance(encoded, bytes)
    assert json.loads(encoded) == value


def test_an_integer_beyond_64_bits_falls_back_to_the_standard_library():
    value = {"ticket": 123456789012345678901234567890}

    encoded = json_dumps(value)

    assert isinstance(encoded, str)
    assert json.loads(encoded) == value


@pytest.mark.django_db
def test_a_span_with_a_huge_integer_is_stored_intact():
    project = Project.objects.create(name="Billing", slug="billing")
    tree = {
        "name": "invoice-agent",
        "type": "agent",
        "input": "Look up ticket 123456789012345678901234567890",
        "children": [
            {
                "name": "get_ticket",
                "type": "tool",
                "input": {"ticket": 123456789012345678901234567890},
                "output": {"status": "open"},
            },
        ],
    }

    trace = ingest_span_tree(project, tree)

    span = trace.spans.get(name="get_ticket")
    assert span.input == {"ticket": 123456789012345678901234567890}
    assert span.output == {"status": "open"}
