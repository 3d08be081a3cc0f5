"""trace_span_nodes and the _span_tree.html partial the review page includes."""

import re

import pytest
from django.template.loader import render_to_string

from tests.factories import SpanFactory, TraceFactory
from traces.models import SpanKind, SpanStatus
from traces.selectors import span_nodes_rows, trace_span_nodes

pytestmark = pytest.mark.django_db


def spans_under(trace, tree) -> None:
    """One span per (span id, parent, name, kind, other fields) row, in the rows' order."""
    for position, (span_id, parent, name, kind, fields) in enumerate(tree):
        SpanFactory(
            trace=trace,
            span_id=span_id,
            parent_span_id=parent,
            name=name,
            kind=kind,
            position=position,
            **fields,
        )


@pytest.fixture
def booking_trace():
    trace = TraceFactory(task="Book a flight from Lisbon to Berlin on 14 May")
    failed = {
        "status": SpanStatus.ERROR,
        "error_message": "upstream timeout",
        "output": {"html": "<img src=x onerror=alert(1)>"},
    }
    spans_under(
        trace,
        [
            ("a1", "", "invoke_agent travel", SpanKind.AGENT, {"input": None, "output": None}),
            ("b1", "a1", "chat claude", SpanKind.LLM, {"input_tokens": 1200, "output_tokens": 80}),
            ("c1", "a1", "search_flights", SpanKind.TOOL, failed),
            ("d1", "c1", "http GET", SpanKind.CUSTOM, {}),
            # Parent never arrived: still shown, as a root.
            ("e1", "zz", "orphan", SpanKind.CUSTOM, {}),
        ],
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
    for position, (span_id, parent) in enumerate([("a", ""), ("b", "a"), ("c", "b"), ("d", "")]):
        SpanFactory(trace=trace, span_id=span_id, parent_span_id=parent, position=position)
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
    for position, (span_id, parent) in enumerate([("a", "b"), ("b", "a"), ("c", "a"), ("d", "d")]):
        SpanFactory(trace=trace, span_id=span_id, parent_span_id=parent, position=position)
    # when
    rows = span_nodes_rows(trace_span_nodes(trace))
    # then every span shows once
    assert sorted(r.node.span_id for r in rows) == ["a", "b", "c", "d"]
