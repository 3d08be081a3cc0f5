"""The trace page: task and answer on top, tree, timeline data, judging, escaping, speed."""

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from judges.models import RedFlag
from tests.factories import (
    JudgmentFactory,
    ProjectFactory,
    ReviewItemFactory,
    SpanFactory,
    TraceFactory,
    VerdictFactory,
)
from tests.traces.test_ingest_span_tree import refund_tree
from traces.ingest.services import ingest_span_tree
from traces.models import Span, SpanKind

pytestmark = pytest.mark.django_db
XSS = "<img src=x onerror=alert(1)>"


@pytest.fixture
def logged_in(client, annotator):
    client.force_login(annotator)
    return client


def test_page_shows_task_answer_tree_and_timeline(logged_in):
    # given
    trace = ingest_span_tree(ProjectFactory(), refund_tree())
    # when
    response = logged_in.get(f"/traces/{trace.pk}/")
    # then
    body = response.content.decode()
    assert response.status_code == 200
    assert body.index("Refund order A1042, it arrived broken.") < body.index("span-tree")
    assert "PaymentGatewayTimeout after 30s" in body
    assert 'class="span-node kind-tool is-error' in body
    assert "vendor/plotly.min.js" in body and "js/trace_detail.js" in body
    rows = response.context["waterfall"]
    assert [r["ms"] for r in rows] == [6000, 1400, 300, 3000]
    assert rows[3]["error"] is True and rows[1]["start"] == 100
    assert '<script id="trace-waterfall-data" type="application/json">' in body


def test_untrusted_text_is_shown_as_text(logged_in):
    # given a tool output, a task and an answer that carry markup
    tree = refund_tree(trace_id="f" * 32, input=XSS, output=f"done {XSS}")
    tree["children"][1]["output"] = {"note": XSS}
    tree["children"][1]["name"] = XSS
    trace = ingest_span_tree(ProjectFactory(), tree)
    # when
    body = logged_in.get(f"/traces/{trace.pk}/").content.decode()
    # then
    assert XSS not in body
    assert "&lt;img src=x onerror=alert(1)&gt;" in body
    waterfall = body.split('id="trace-waterfall-data" type="application/json">')[1].split(
        "</script>"
    )[0]
    assert "<img" not in waterfall
    assert json.loads(waterfall)[2]["label"].endswith(XSS)


def test_judgments_verdicts_and_review_items_are_listed(logged_in):
    # given
    trace = ingest_span_tree(ProjectFactory(), refund_tree())
    refund_span = trace.spans.get(name="issue_refund")
    judgment = JudgmentFactory(
        trace=trace,
        score=0.0,
        explanation="Refund was never confirmed.",
        cited_spans=[refund_span.span_id],
    )
    VerdictFactory(trace=trace, run=judgment.run, status="disputed", reason="passes disagree")
    ReviewItemFactory(trace=trace)
    lookup = trace.spans.get(name="lookup_order")
    RedFlag.objects.create(
        trace=trace,
        span=lookup,
        kind=RedFlag.Kind.LOOP,
        detail="lookup_order called twice with the same order id",
    )
    # when
    response = logged_in.get(f"/traces/{trace.pk}/")
    # then
    body = response.content.decode()
    assert "Refund was never confirmed." in body
    assert "disputed" in body and "Judge passes disagree" in body
    assert refund_span.span_id in response.context["highlight_span_ids"]
    assert f'href="/reviews/items/{trace.review_items.get().pk}/"' in body
    assert f'href="/judges/runs/{judgment.run_id}/"' in body
    assert "Repeated identical calls" in body and "called twice with the same order id" in body
    assert lookup.span_id in response.context["highlight_span_ids"]
    assert f'is-highlighted" id="span-{refund_span.span_id}"' in body


def test_roles_are_checked(client, outsider):
    trace = TraceFactory()
    assert client.get(f"/traces/{trace.pk}/").status_code == 302
    client.force_login(outsider)
    assert client.get(f"/traces/{trace.pk}/").status_code == 403


def test_missing_trace_is_404(logged_in):
    assert logged_in.get("/traces/987654/").status_code == 404


def _big_trace(spans: int):
    """An agent loop: root > steps > (llm, tool); timestamps and payloads like real traces."""
    trace = TraceFactory(task="Migrate the billing module to the new invoice API")
    start = timezone.now()
    rows = [
        Span(
            trace=trace,
            span_id="root",
            name="invoke_agent coder",
            kind=SpanKind.AGENT,
            started_at=start,
            ended_at=start + timedelta(seconds=spans),
            position=0,
        )
    ]
    for index in range(1, spans):
        begin = start + timedelta(milliseconds=500 * index)
        kind = SpanKind.LLM if index % 2 else SpanKind.TOOL
        rows.append(
            Span(
                trace=trace,
                span_id=f"s{index}",
                parent_span_id="root",
                position=index,
                name="chat gpt-4.1" if kind == SpanKind.LLM else "run_tests",
                kind=kind,
                started_at=begin,
                ended_at=begin + timedelta(milliseconds=400),
                duration_ms=400,
                input={"path": f"billing/invoice_{index}.py", "args": ["-q"]},
                output={"stdout": "collected 12 items\n" + "." * 200, "exit_code": index % 7 == 0},
                input_tokens=1200 if kind == SpanKind.LLM else 0,
                attributes={
                    "gen_ai.operation.name": "chat" if kind == SpanKind.LLM else "execute_tool",
                    "gen_ai.request.model": "gpt-4.1",
                    "agent.step_index": index,
                    "otel.span_kind": "internal",
                    "otel.scope.name": "coder.agent",
                    "service.name": "coder",
                    "service.version": "0.9.1",
                },
            )
        )
    Span.objects.bulk_create(rows)
    trace.started_at, trace.span_count = start, spans
    trace.save()
    return trace


def test_query_count_does_not_grow_with_spans(logged_in):
    small, big = _big_trace(10), _big_trace(300)
    with CaptureQueriesContext(connection) as few:
        logged_in.get(f"/traces/{small.pk}/")
    with CaptureQueriesContext(connection) as many:
        logged_in.get(f"/traces/{big.pk}/")
    assert len(many) == len(few)


def test_a_2000_span_trace_renders_every_span(logged_in):
    # given (its server time is measured by bench/trace_page.py, not here)
    trace = _big_trace(2000)
    # when
    response = logged_in.get(f"/traces/{trace.pk}/")
    # then
    assert response.status_code == 200
    assert response.content.count(b'class="span-node') == 2000


def test_a_huge_trace_shows_its_first_spans_and_says_so(logged_in, monkeypatch):
    from traces import views

    monkeypatch.setattr(views, "TRACE_PAGE_MAX_SPANS", 50)
    trace = _big_trace(120)
    response = logged_in.get(f"/traces/{trace.pk}/")
    assert response.content.count(b'class="span-node') == 50
    assert b"Showing the first 50 of 120 spans" in response.content


def test_a_huge_attribute_is_cut_on_the_page_and_downloads_whole(client, annotator):
    from traces.templatetags.trace_tags import CUT_CHARS

    huge = "x" * (2 * 1024 * 1024)
    span = SpanFactory(attributes={"blob": huge}, output={"text": "<b>" + "y" * CUT_CHARS})
    client.force_login(annotator)

    page = client.get(f"/traces/{span.trace_id}/").content.decode()

    assert len(page) < 200_000
    assert "more characters" in page and "&lt;b&gt;" in page and "<b>y" not in page
    raw_url = f"/traces/{span.trace_id}/spans/{span.pk}/raw/attributes/"
    assert raw_url in page
    raw = client.get(raw_url)
    assert raw["Content-Type"] == "application/json"
    assert raw["Content-Disposition"].startswith("attachment;")
    assert raw.json() == {"blob": huge}
    assert client.get(f"/traces/{span.trace_id}/spans/{span.pk}/raw/secrets/").status_code == 404
