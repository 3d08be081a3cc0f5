"""Two traces picked on the trace list with the keyboard: Tab to a row's box, Space to tick,
`c` opens the pair side by side; the buttons wait for exactly two."""

import pytest

from tests.e2e.conftest import login_as
from tests.factories import ToolSpanFactory, TraceFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

TASK = "Cancel order A1042, please."


def test_two_rows_ticked_by_keyboard_open_side_by_side(new_page, annotator):
    traces = [TraceFactory(task=TASK, final_answer=f"Answer {i}") for i in range(3)]
    for trace in traces:
        ToolSpanFactory(trace=trace, name="cancel_order")
    page = new_page()
    login_as(page, annotator)
    page.console_errors.clear()
    page.goto("/traces/")
    boxes = page.locator('input[form="pair-form"][name="trace"]')
    assert boxes.count() == 3
    assert page.locator("#pair-open").is_disabled()
    boxes.nth(0).focus()
    page.keyboard.press("Space")
    assert page.locator("#pair-count").inner_text() == "1 of 2 traces picked"
    page.keyboard.press("c")  # one is not a pair: nothing happens
    assert page.url.endswith("/traces/")
    boxes.nth(1).focus()
    page.keyboard.press("Space")
    assert page.locator("#pair-count").inner_text() == "2 traces picked"
    assert page.locator("#pair-open").is_enabled()
    with page.expect_navigation():
        page.keyboard.press("c")
    assert "/traces/pair/" in page.url
    assert page.locator("#side-A").is_visible() and page.locator("#side-B").is_visible()
    assert page.console_errors == []
