"""ingest_span_tree: the nested span-tree JSON shape."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.errors import ApplicationError
from demo.scenarios import scenarios
from tests.factories import ProjectFactory
from traces.ingest.services import ingest_span_tree
from traces.models import Span, SpanKind, SpanStatus, Trace

pytestmark = pytest.mark.django_db


def refund_tree(**overrides):
    tree = {
        "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
        "name": "invoke_agent support",
        "type": "agent",
        "input": "Refund order A1042, it arrived broken.",
        "output": "I've refunded order A1042; you'll see it in 3-5 days.",
        "start_time": "2026-11-20T10:00:00Z",
        "end_time": "2026-11-20T10:00:06Z",
        "available_tools": [{"name": "lookup_order"}, {"name": "issue_refund"}],
        "attributes": {
            "gen_ai.agent.name": "support",
            "gen_ai.agent.version": "2.1.0",
            "agent.stop_reason": "end_turn",
            "agent.task_type": "refund",
        },
        "children": [
            {
                "name": "chat claude-sonnet-4-5",
                "type": "llm",
                "start_time": "2026-11-20T10:00:00.100Z",
                "end_time": "2026-11-20T10:00:01.500Z",
                "input": [{"role": "user", "content": "Refund order A1042"}],
                "output": "I'll look the order up.",
                "attributes": {
                    "gen_ai.usage.input_tokens": 812,
                    "gen_ai.usage.output_tokens": 40,
                    "gen_ai.request.model": "claude-sonnet-4-5",
                },
            },
            {
                "name": "lookup_order",
                "type": "tool",
                "tool_call_id": "toolu_01",
                "start_time": "2026-11-20T10:00:01.600Z",
                "end_time": "2026-11-20T10:00:01.900Z",
                "input": {"order_id": "A1042"},
                "output": {"status": "delivered", "total": 59.0},
            },
            {
                "name": "issue_refund",
                "type": "tool",
                "status": "error",
                "error": "PaymentGatewayTimeout after 30s",
                "start_time": "2026-11-20T10:00:02Z",
                "end_time": "2026-11-20T10:00:05Z",
                "input": {"order_id": "A1042", "amount": 59.0},
                "output": None,
            },
        ],
    }
    tree.update(overrides)
    return tree


def test_tree_is_stored_with_trace_fields_and_kinds():
    # given
    project = ProjectFactory()
    # when
    trace = ingest_span_tree(project, refund_tree())
    # then
    trace.refresh_from_db()
    assert trace.task == "Refund order A1042, it arrived broken."
    assert trace.final_answer.startswith("I've refunded")
    assert (trace.agent_name, trace.agent_version) == ("support", "2.1.0")
    assert (trace.stop_reason, trace.task_type) == ("end_turn", "refund")
    assert trace.model == "claude-sonnet-4-5"
    assert trace.span_count == 4 and trace.error_count == 1
    assert (trace.input_tokens, trace.output_tokens) == (812, 40)
    assert trace.cost_usd > 0
    assert trace.context["available_tools"][1]["name"] == "issue_refund"
    assert trace.duration_ms == 6000
    spans = list(trace.spans.order_by("position"))
    assert [s.kind for s in spans] == [SpanKind.AGENT, SpanKind.LLM, SpanKind.TOOL, SpanKind.TOOL]
    assert {s.parent_span_id for s in spans[1:]} == {spans[0].span_id}
    refund = spans[3]
    assert refund.status == SpanStatus.ERROR
    assert refund.error_message == "PaymentGatewayTimeout after 30s"
    assert refund.tool_name == "issue_refund"
    assert spans[2].tool_call_id == "toolu_01"
    assert spans[1].duration_ms == 1400


def test_sending_the_same_tree_again_changes_nothing():
    # given
    project = ProjectFactory()
    first = ingest_span_tree(project, refund_tree())
    # when
    second = ingest_span_tree(project, refund_tree())
    # then
    assert first.pk == second.pk
    assert Trace.objects.count() == 1
    assert Span.objects.count() == 4
    second.refresh_from_db()
    assert second.span_count == 4


def test_tree_without_ids_gets_stable_ids_from_its_content():
    # given
    project = ProjectFactory()
    tree = refund_tree()
    del tree["trace_id"]
    # when
    first = ingest_span_tree(project, tree)
    again = ingest_span_tree(project, dict(tree))
    # then the same content is the same trace with the same spans
    assert len(first.external_id) == 32
    assert again.pk == first.pk
    assert Span.objects.filter(trace=first).count() == 4


def test_query_count_does_not_grow_with_spans():
    # given a wide tree of 300 spans
    project = ProjectFactory()
    wide = refund_tree(trace_id="a" * 32)
    wide["children"] = [
        {"name": f"search_flights #{i}", "type": "tool", "input": {"page": i}, "output": []}
        for i in range(300)
    ]
    small = refund_tree(trace_id="b" * 32)
    # when
    with CaptureQueriesContext(connection) as small_q:
        ingest_span_tree(project, small)
    with CaptureQueriesContext(connection) as wide_q:
        ingest_span_tree(project, wide)

    # then only batched INSERTs repeat (SQLite caps parameters per statement): spans, and the
    # catalogue rows of 300 distinct tools; red flags found on completion depend on the content,
    # the project's guardrail policy (with its failure rule) and masking rules are read first and
    # remembered for seconds, as is whether it has log records waiting, and the spans table's
    # column types by the first COPY of the process
    def others(ctx):
        return [
            q["sql"]
            for q in ctx.captured_queries
            if '"traces_span"' not in q["sql"][:40]
            and '"judges_redflag"' not in q["sql"][:40]
            and '"judges_guardrailpolicy"' not in q["sql"]
            and '"traces_maskingrule"' not in q["sql"][:40]
            and '"traces_pendingspanlog"' not in q["sql"][:60]
            and 'INTO "judges_tooleffect"' not in q["sql"][:60]
            and "SAVEPOINT" not in q["sql"][:20]
            and "FROM pg_attribute" not in q["sql"]
        ]

    span_inserts = sum('INTO "traces_span"' in q["sql"][:60] for q in wide_q.captured_queries)
    assert len(others(wide_q)) == len(others(small_q))
    assert span_inserts <= 10
    assert Span.objects.filter(trace__external_id="a" * 32).count() == 301


@pytest.mark.parametrize(
    ("tree", "field"),
    [
        ({"type": "agent"}, "name"),
        ({"name": "x", "children": "nope"}, "children"),
        ({"name": "x", "children": [{"name": 5}]}, "children[0].name"),
        (
            {"name": "x", "children": [{"name": "t", "start_time": "yesterday"}]},
            "children[0].start_time",
        ),
        ({"name": "x", "attributes": [1, 2]}, "attributes"),
        ({"name": "x", "trace_id": 12}, "trace_id"),
        (
            {"name": "x", "children": [{"name": "t", "input_tokens": -3}]},
            "children[0].input_tokens",
        ),
        ({"name": "x", "available_tools": "all"}, "available_tools"),
        (
            {"name": "x", "start_time": "2026-01-01T10:00:00Z", "end_time": "2026-01-01T09:00:00Z"},
            "end_time",
        ),
    ],
)
def test_bad_trees_name_the_field_and_store_nothing(tree, field):
    # given
    project = ProjectFactory()
    # when
    with pytest.raises(ApplicationError) as caught:
        ingest_span_tree(project, tree)
    # then
    assert caught.value.field == field
    assert Trace.objects.count() == 0


def test_every_demo_scenario_ingests():
    # given
    project = ProjectFactory()
    payloads = scenarios()
    # when
    traces = [ingest_span_tree(project, payload) for payload in payloads]
    # then
    assert len({t.pk for t in traces}) == len(payloads)
    assert all(Trace.objects.get(pk=t.pk).task for t in traces)
    assert Span.objects.filter(status=SpanStatus.ERROR).exists()
