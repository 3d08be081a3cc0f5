"""trace_span_nodes and the _span_tree.html partial the review page includes."""

import re

import pytest
from django.template.loader import render_to_string

from tests.factories import SpanFactory, TraceFactory
from traces.models import SpanKind, SpanStatus
from traces.selectors import span_nodes_rows, trace_span_nodes

pytestmark = pytest.mark.django_db


@pytest.fixture
def booking_trace():
    trace = TraceFactory(task="Book a flight from Lisbon to Berlin on 14 May")
    SpanFactory(
        trace=trace,
        span_id="a1",
        parent_span_id="",
        name="invoke_agent travel",
        kind=SpanKind.AGENT,
        position=0,
        input=None,
        output=None,
    )
    SpanFactory(
        trace=trace,
        span_id="b1",
        parent_span_id="a1",
        name="chat claude",
        kind=SpanKind.LLM,
        position=1,
        input_tokens=1200,
        output_tokens=80,
    )
    SpanFactory(
        trace=trace,
        span_id="c1",
        parent_span_id="a1",
        name="search_flights",
        kind=SpanKind.TOOL,
        position=2,
        status=SpanStatus.ERROR,
        error_message="upstream timeout",
        output={"html": "<img src=x onerror=alert(1)>"},
    )
    SpanFactory(
        trace=trace,
        span_id="d1",
        parent_span_id="c1",
        name="http GET",
        kind=SpanKind.CUSTOM,
        position=3,
    )
    # Parent never arrived: still shown, as a root.
    SpanFactory(
        trace=trace,
        span_id="e1",
        parent_span_id="zz",
        name="orphan",
        kind=SpanKind.CUSTOM,
        position=4,
    )
    return trace


def test_nodes_nest_children_in_order_and_keep_orphans(booking_trace):
    # when
    roots = trace_span_nodes(booking_trace)
    # then
    assert [n.span_id for n in roots] == ["a1", "e1"]
    assert [c.span_id for c in roots[0].children] == ["b1", "c1"]
    assert roots[0].children[1].children[0].span_id == "d1"
    assert roots[0].children[1].children[0].depth == 2
    assert roots[0].children[1].is_error


def test_rows_close_every_open_list():
    # given a chain a > b > c and a sibling d of a
    trace = TraceFactory()
    SpanFactory(trace=trace, span_id="a", position=0)
    SpanFactory(trace=trace, span_id="b", parent_span_id="a", position=1)
    SpanFactory(trace=trace, span_id="c", parent_span_id="b", position=2)
    SpanFactory(trace=trace, span_id="d", position=3)
    # when
    rows = span_nodes_rows(trace_span_nodes(trace))
    # then
    assert [(r.node.span_id, r.has_children, len(r.closes)) for r in rows] == [
        ("a", True, 0),
        ("b", True, 0),
        ("c", False, 2),
        ("d", False, 0),
    ]


def test_partial_renders_balanced_tree_escaped_and_highlighted(booking_trace):
    # when
    html = render_to_string(
        "traces/_span_tree.html",
        {"nodes": trace_span_nodes(booking_trace), "highlight_span_ids": {"c1"}},
    )
    # then the markup is balanced, the payload is text, errors and highlights are marked
    assert html.count("<li") == html.count("</li>") == 5
    assert html.count('<details class="span-fold"') == html.count("</details>") - html.count(
        '<details class="fold'
    )
    assert "<img src=x" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert re.search(r'class="span-node kind-tool is-error is-highlighted" id="span-c1"', html)
    assert "upstream timeout" in html
    assert "1200↑ 80↓ tok" in html


def test_a_parent_cycle_neither_hides_spans_nor_loops():
    # given a under b under a, and c under a
    trace = TraceFactory()
    SpanFactory(trace=trace, span_id="a", parent_span_id="b", position=0)
    SpanFactory(trace=trace, span_id="b", parent_span_id="a", position=1)
    SpanFactory(trace=trace, span_id="c", parent_span_id="a", position=2)
    SpanFactory(trace=trace, span_id="d", parent_span_id="d", position=3)
    # when
    rows = span_nodes_rows(trace_span_nodes(trace))
    # then every span shows once
    assert sorted(r.node.span_id for r in rows) == ["a", "b", "c", "d"]
