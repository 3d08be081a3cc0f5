"""traces.serialize: what the judge reads."""

import json

import pytest

from tests.factories import ProjectFactory, SpanFactory, TraceFactory
from tests.traces.test_ingest_span_tree import refund_tree
from traces.ingest.services import ingest_span_tree
from traces.serialize import trace_span_tree, trace_transcript

pytestmark = pytest.mark.django_db


def test_span_tree_round_trips_the_ingested_shape():
    trace = ingest_span_tree(ProjectFactory(), refund_tree())
    tree = trace_span_tree(trace)
    assert tree["name"] == "invoke_agent support"
    assert [c["name"] for c in tree["children"]] == [
        "chat claude-sonnet-4-5",
        "lookup_order",
        "issue_refund",
    ]
    assert tree["children"][2]["error"] == "PaymentGatewayTimeout after 30s"
    assert tree["available_tools"][0]["name"] == "lookup_order"
    assert "TOOL ERROR: PaymentGatewayTimeout after 30s" in trace_transcript(trace)


def test_cyclic_parents_still_serialize():
    trace = TraceFactory()
    SpanFactory(trace=trace, span_id="a", parent_span_id="b", position=0)
    SpanFactory(trace=trace, span_id="b", parent_span_id="a", position=1)
    tree = trace_span_tree(trace)
    assert json.dumps(tree).count('"name"') == 2
