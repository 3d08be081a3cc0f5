"""Component attribution and the per-component accuracy table."""

import pytest

from metrics.attribution import (
    component_accuracy_table,
    component_roles,
    span_components_assign,
)
from tests.factories import SpanFactory, TraceFactory
from traces.models import SpanKind


@pytest.mark.django_db
def test_agents_tools_and_llm_calls_get_component_ids():
    # given an orchestrator that hands off to a refunds worker which calls a tool and an LLM
    trace = TraceFactory()
    # (span id, parent, kind, name)
    tree = [
        ("a1", "", SpanKind.AGENT, "orchestrator"),
        ("a2", "a1", SpanKind.AGENT, "refunds"),
        ("l1", "a2", SpanKind.LLM, "chat"),
        ("t1", "a2", SpanKind.TOOL, "issue_refund"),
    ]
    root, worker, llm, tool = (
        SpanFactory(
            trace=trace,
            span_id=span_id,
            parent_span_id=parent,
            kind=kind,
            name=name,
            tool_name=name if kind == SpanKind.TOOL else "",
            position=position,
        )
        for position, (span_id, parent, kind, name) in enumerate(tree)
    )
    # when
    assert span_components_assign(trace) == 4
    # then
    for span in (root, worker, llm, tool):
        span.refresh_from_db()
    assert [root.component, worker.component, llm.component, tool.component] == [
        "agent:orchestrator",
        "agent:refunds",
        "agent:refunds",
        "tool:issue_refund",
    ]
    assert component_roles(trace.spans.all()) == {
        "agent:orchestrator": "orchestrator",
        "agent:refunds": "worker agent",
        "tool:issue_refund": "tool",
    }


def test_table_rolls_up_scores_and_flags_worst_first():
    table = component_accuracy_table(
        step_scores=[
            ("tool:cancel_order", 0.0),
            ("tool:cancel_order", 1.0),
            ("tool:get_order", 1.0),
            ("agent:orchestrator", 1.0),
        ],
        flags=[("tool:cancel_order", "hallucinated_parameter"), ("agent:orchestrator", "loop")],
        roles={"agent:orchestrator": "orchestrator"},
    )
    assert [row["component"] for row in table] == [
        "tool:cancel_order",
        "agent:orchestrator",
        "tool:get_order",
    ]
    assert table[0]["accuracy"] == 0.5 and table[0]["flag_kinds"] == {"hallucinated_parameter": 1}
    assert table[1]["role"] == "orchestrator" and table[2]["role"] == "tool"
