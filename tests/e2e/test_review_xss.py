"""Hostile text inside a trace and a judge reply shows as text and runs nothing."""

import pytest

from tests.e2e.conftest import page_holding
from tests.factories import (
    JudgmentFactory,
    QueueFactory,
    ToolSpanFactory,
    TraceFactory,
    VerdictFactory,
    VerdictItemFactory,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

IMG = '<img src=x onerror="window.__xss=1">'
SCRIPT = "<script>window.__xss=2</script>"


def test_xss_payload_in_a_tool_output_is_shown_as_text(new_page, annotator):
    trace = TraceFactory(task=f"Summarise the web page {SCRIPT}")
    ToolSpanFactory(
        trace=trace, span_id="beef000000000001", name="fetch_url", output=f"Page says: {IMG}"
    )
    verdict = VerdictFactory(trace=trace)
    JudgmentFactory(trace=trace, run=verdict.run, pass_index=0, score=1, explanation=IMG)
    JudgmentFactory(trace=trace, run=verdict.run, pass_index=1, score=0, explanation=SCRIPT)
    item = VerdictItemFactory(queue=QueueFactory(), verdict=verdict)
    page = page_holding(new_page, annotator, item)
    assert IMG in page.locator("#span-beef000000000001").inner_text()
    assert SCRIPT in page.locator("#trace-task").inner_text()
    assert IMG in page.locator("#judge-passes").inner_text()
    assert page.locator("main img").count() == 0
    assert page.evaluate("window.__xss") is None
    assert page.console_errors == []
