"""The trace page: task and answer on top, tree, timeline data, judging, escaping, speed."""

import html
import json
import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from metrics.models import RedFlag
from tests.factories import (
    JudgmentFactory,
    ProjectFactory,
    ReviewItemFactory,
    SpanFactory,
    TraceFactory,
    VerdictFactory,
)
from tests.traces.test_ingest_span_tree import refund_tree
from traces import span_window
from traces.ingest.services import ingest_span_tree
from traces.models import Span, SpanKind
from traces.span_html import CUT_CHARS
from traces.span_window import WINDOW_ROWS

pytestmark = pytest.mark.django_db
XSS = "<img src=x onerror=alert(1)>"


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
    rows = response.context["waterfall"]  # [id, label, kind, start, ms, failed]
    assert [r[4] for r in rows] == [6000, 1400, 300, 3000]
    assert rows[3][5] == 1 and rows[1][3] == 100
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
    assert json.loads(waterfall)[2][1].endswith(XSS)


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
    # an item the annotator neither holds nor answered is listed, linked to its queue only
    item = trace.review_items.get()
    assert f'href="/reviews/items/{item.pk}/"' not in body
    assert f'href="/reviews/queues/{item.queue_id}/"' in body
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


def test_a_2000_span_trace_renders_its_first_window_and_the_rest_on_demand(logged_in):
    # given (its server time and size are measured by bench/trace_page.py, not here)
    trace = _big_trace(2000)
    # when
    page = logged_in.get(f"/traces/{trace.pk}/").content.decode()
    # then the first window is in the page with first levels, not whole values
    assert page.count('class="span-node') == WINDOW_ROWS
    assert '<span class="k">path</span> billing/invoice_1.py' in page
    assert "gen_ai.request.model" not in page
    more = re.findall(r'hx-get="(/traces/\d+/tree/\?[^"]+)"', page)
    assert len(more) == 1 and f"Show {2000 - WINDOW_ROWS:,} more spans" in page
    # and the placeholders bring every other span, once
    shown = re.findall(r'id="span-([^"]+)"', page)
    while more:
        rows = logged_in.get(html.unescape(more.pop())).content.decode()
        shown += re.findall(r'id="span-([^"]+)"', rows)
        more += re.findall(r'hx-get="(/traces/\d+/tree/\?[^"]+)"', rows)
    assert len(shown) == len(set(shown)) == 2000


def test_a_linked_span_past_the_window_is_rendered_with_its_ancestors(logged_in, monkeypatch):
    monkeypatch.setattr(span_window, "WINDOW_ROWS", 10)
    trace = _big_trace(40)
    page = logged_in.get(f"/traces/{trace.pk}/?span=s30").content.decode()
    assert 'is-highlighted" id="span-s30"' in page and 'id="span-root"' in page
    # the spans between the window and the link, and after it, wait behind placeholders
    assert "Show 20 more spans" in page and "Show 9 more spans" in page
    assert 'id="span-s20"' not in page and page.count('class="span-node') == 11


def test_the_rows_route_checks_its_parameters_and_the_held_out_rule(logged_in, client):
    trace = _big_trace(5)
    url = f"/traces/{trace.pk}/tree/"
    assert logged_in.get(url, {"parent": "root", "from": "x", "to": "2"}).status_code == 400
    assert logged_in.get(url, {"parent": "root", "from": "3", "to": "1"}).status_code == 400
    assert logged_in.get(url, {"parent": "nope", "from": "0", "to": "1"}).status_code == 404
    rows = logged_in.get(url, {"parent": "root", "from": "1", "to": "3"}).content.decode()
    assert re.findall(r'id="span-([^"]+)"', rows) == ["s2", "s3"]
    trace.held_out = True
    trace.save(update_fields=["held_out"])
    assert logged_in.get(url, {"parent": "root", "from": "0", "to": "1"}).status_code == 404


def test_a_huge_trace_shows_its_first_spans_and_says_so(logged_in, monkeypatch):
    from explorer import views

    monkeypatch.setattr(views, "TRACE_PAGE_MAX_SPANS", 50)
    trace = _big_trace(120)
    response = logged_in.get(f"/traces/{trace.pk}/")
    assert response.content.count(b'class="span-node') == 50
    assert b"Showing the first 50 of 120 spans" in response.content


def test_a_span_opens_whole_escaped_and_under_the_held_out_rule(logged_in, curator, client):
    # given a tool span whose output carries markup
    tree = refund_tree()
    tree["children"][1]["output"] = {"note": XSS, "status": "delivered"}
    trace = ingest_span_tree(ProjectFactory(), tree)
    span = trace.spans.get(name=tree["children"][1]["name"])
    url = f"/traces/{trace.pk}/spans/{span.pk}/"
    # when
    page = logged_in.get(f"/traces/{trace.pk}/").content.decode()
    body = logged_in.get(url).content.decode()
    # then the page links the fragment and the fragment holds the value, as text
    assert f'hx-get="{url}"' in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in body and XSS not in body
    assert '"status": "delivered"' in body.replace("&quot;", '"')
    assert logged_in.get(f"/traces/{trace.pk}/spans/987654/").status_code == 404
    # a held-out trace's spans are for curators only
    trace.held_out = True
    trace.save(update_fields=["held_out"])
    assert logged_in.get(url).status_code == 404
    client.force_login(curator)
    assert client.get(url).status_code == 200


def test_a_huge_attribute_is_cut_in_the_span_and_downloads_whole(client, annotator):
    huge = "x" * (2 * 1024 * 1024)
    span = SpanFactory(attributes={"blob": huge}, output={"text": "<b>" + "y" * CUT_CHARS})
    client.force_login(annotator)

    page = client.get(f"/traces/{span.trace_id}/").content.decode()
    body = client.get(f"/traces/{span.trace_id}/spans/{span.pk}/").content.decode()

    assert len(page) < 100_000 and "x" * 1000 not in page
    assert len(body) < 200_000
    assert "more characters" in body and "&lt;b&gt;" in body and "<b>y" not in body
    raw_url = f"/traces/{span.trace_id}/spans/{span.pk}/raw/attributes/"
    assert raw_url in body
    raw = client.get(raw_url)
    assert raw["Content-Type"] == "application/json"
    assert raw["Content-Disposition"].startswith("attachment;")
    assert raw.json() == {"blob": huge}
    assert client.get(f"/traces/{span.trace_id}/spans/{span.pk}/raw/secrets/").status_code == 404
