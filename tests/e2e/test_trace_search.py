"""Searching the trace list's content and attributes in real Chromium."""

import pytest

from tests.e2e.conftest import login_as, trace_list_filtered
from tests.factories import ProjectFactory
from tests.traces.test_ingest_span_tree import refund_tree
from traces.ingest.services import ingest_span_tree
from traces.tasks import search_documents_refresh_task

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_content_search_and_attribute_filter_narrow_the_list(new_page, annotator, settings):
    # given two traces, one of which failed with a gateway timeout, indexed by the sweep
    settings.SEARCH_INDEX_QUIET_SECONDS = 0
    project = ProjectFactory()
    ingest_span_tree(project, refund_tree())
    porto = refund_tree(trace_id="1" * 32, input="Book a hotel in Porto")
    porto["children"] = porto["children"][:2]
    ingest_span_tree(project, porto)
    search_documents_refresh_task()
    page = new_page()
    login_as(page, annotator)
    page.goto("/traces/")
    # when searching for the error's text
    rows = trace_list_filtered(
        page, "#id_search", "PaymentGatewayTimeout", "search=PaymentGatewayTimeout"
    )
    # then only the failed trace is listed
    assert rows.count() == 1 and "Refund order A1042" in rows.first.inner_text()
    # when filtering on an attribute with bad syntax, the box says why
    page.fill("#id_search", "")
    page.fill("#id_attr", "gen_ai.usage.input_tokens >")
    page.click("form.filters button[type=submit]")
    assert "Cannot read" in page.locator(".filters [role=alert]").inner_text()
    # and with good syntax, both traces with that model call are listed
    rows = trace_list_filtered(page, "#id_attr", "gen_ai.usage.input_tokens >= 812", "812")
    assert rows.count() == 2
    # the only console complaint is the 400 the bad syntax was answered with
    assert [e for e in page.console_errors if "400 (Bad Request)" not in e] == []
