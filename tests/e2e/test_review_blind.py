"""A blind item in the browser: nothing the judge said is in the DOM until the answer is in."""

import pytest

from tests.e2e.conftest import login_as, wait_for_focus
from tests.reviews.blind_items import (
    EXPLANATIONS,
    FLAG_DETAIL,
    JUDGE_TEXTS,
    REASON_TEXT,
    blind_red_flag_item,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

JUDGE_SELECTORS = ("#judge-passes", ".pass .score", "#red-flags", "#item-detail", "#trace-judging")


def _judge_traces_in(page) -> list[str]:
    html = page.content()
    found = [text for text in JUDGE_TEXTS if text in html]
    found += [selector for selector in JUDGE_SELECTORS if page.locator(selector).count()]
    found += ["highlighted span"] * page.locator(".is-highlighted").count()
    return found


def test_blind_item_hides_the_judge_on_the_page_and_the_linked_trace(new_page, annotator):
    item = blind_red_flag_item()
    page = new_page()
    page.set_viewport_size({"width": 1400, "height": 900})
    login_as(page, annotator)
    page.goto(f"/reviews/queues/{item.queue_id}/")
    wait_for_focus(page, "#claim-button")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url.endswith(f"/reviews/items/{item.pk}/")
    assert "Refund order A1042" in page.locator("#trace-task").inner_text()
    assert page.locator("#item-reason").inner_text() == "needs review"
    assert _judge_traces_in(page) == []
    page.screenshot(path="/tmp/blind-item.png", full_page=False)

    with page.expect_navigation():
        page.click("#open-trace")
    assert f"/traces/{item.trace_id}/" in page.url
    assert page.locator("#trace-blind").is_visible()
    assert _judge_traces_in(page) == []
    page.screenshot(path="/tmp/blind-trace.png", full_page=False)

    page.go_back()
    page.keyboard.press("0")
    with page.expect_navigation():
        page.keyboard.press("Control+Enter")
    page.goto(f"/reviews/items/{item.pk}/")
    html = page.content()
    assert all(text in html for text in (*EXPLANATIONS, FLAG_DETAIL, REASON_TEXT))
    page.goto(f"/traces/{item.trace_id}/")
    assert page.locator("#trace-judging").is_visible()
    page.screenshot(path="/tmp/revealed-trace.png", full_page=False)
