"""Trace list and trace page in real Chromium: waterfall drawn, tree folds, markup stays text."""

import pytest

from tests.e2e.conftest import login_as, trace_list_filtered
from tests.factories import ProjectFactory
from tests.traces.test_ingest_span_tree import refund_tree
from traces.ingest.services import ingest_span_tree

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
XSS = "<img src=x onerror=alert(1)>"


def test_trace_page_draws_the_waterfall_and_folds_the_tree(new_page, annotator):
    # given a trace whose tool output carries markup
    tree = refund_tree()
    tree["children"][1]["output"] = {"note": XSS, "status": "delivered"}
    trace = ingest_span_tree(ProjectFactory(), tree)
    page = new_page()
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    login_as(page, annotator)
    # when
    page.goto("/traces/")
    page.click(f"a[href='/traces/{trace.pk}/']")
    page.wait_for_selector("#trace-waterfall .main-svg")
    # then the task is on top and the waterfall has one bar per timed span
    assert page.locator("#trace-task").inner_text() == "Refund order A1042, it arrived broken."
    assert page.locator("#trace-waterfall g.point").count() == 4
    # the markup shows as text and never runs
    lookup = page.locator(".span-node.kind-tool").first
    assert XSS in lookup.locator(".span-body > .span-io").last.inner_text()
    # opening the span loads the whole of it, still as text
    lookup.locator(".span-full > summary").first.click()
    whole = lookup.locator(".span-full-body").first
    whole.wait_for()
    assert XSS in whole.inner_text() and "delivered" in whole.inner_text()
    assert page.locator("img[src=x]").count() == 0
    assert dialogs == []
    # the error span is marked
    failing = page.locator(".span-node.is-error")
    assert failing.count() == 1 and "PaymentGatewayTimeout" in failing.inner_text()
    # clicking the error bar in the waterfall brings its span into view, highlighted
    # plotly's drag layer takes the pointer, so click where the bar is drawn
    bar = page.locator("#trace-waterfall g.point path").nth(3)
    bar.scroll_into_view_if_needed()
    box = bar.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    highlighted = page.locator(".span-node.is-highlighted")
    highlighted.wait_for()
    assert "issue_refund" in highlighted.first.inner_text()
    # collapsing the root hides its children
    root_summary = page.locator(".span-tree > li > details > summary").first
    child = page.locator(".span-children > li").first
    assert child.is_visible()
    root_summary.click()
    assert not child.is_visible()
    page.click("#spans-expand")
    assert child.is_visible()
    assert page.console_errors == []


def test_trace_list_filters_by_search(new_page, annotator):
    project = ProjectFactory()
    ingest_span_tree(project, refund_tree())
    ingest_span_tree(project, refund_tree(trace_id="1" * 32, input="Book a hotel in Porto"))
    page = new_page()
    login_as(page, annotator)
    page.goto("/traces/")
    rows = trace_list_filtered(page, "#id_q", "porto", "q=porto")
    assert rows.count() == 1 and "Porto" in rows.first.inner_text()
    assert page.console_errors == []
