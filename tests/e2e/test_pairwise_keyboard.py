"""An annotator compares two pairs of trajectories with the keyboard only: a / b / e answer the
highlighted question and move on, j / k move, w writes why, Enter saves once all are answered."""

import pytest

from reviews.models import Annotation, PairwiseSource
from reviews.pairwise import pairwise_item_create, pairwise_layout, pairwise_queue
from tests.e2e.conftest import claim_by_keyboard, login_as
from tests.factories import RubricVersionFactory, ToolSpanFactory, TraceFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

TASKS = [
    "Cancel my most recent order, I placed it by mistake.",
    "Book the cheapest LIS-BER flight.",
]


def _pair(task):
    baseline, candidate = TraceFactory(task=task), TraceFactory(task=task)
    ToolSpanFactory(trace=baseline, name="get_recent_orders")
    ToolSpanFactory(trace=baseline, name="cancel_order")
    ToolSpanFactory(trace=candidate, name="cancel_order")
    item, _ = pairwise_item_create(
        baseline_trace=baseline, candidate_trace=candidate, source=PairwiseSource.TRACES
    )
    return item


def test_annotator_answers_two_pairs_with_the_keyboard_only(new_page, annotator):
    version = RubricVersionFactory(
        criteria=[
            {"question": "Were the tool calls grounded?"},
            {"question": "Is the answer true?"},
        ]
    )
    queue = pairwise_queue()
    queue.rubric = version.rubric
    queue.save()
    items = [_pair(task) for task in TASKS]
    page = new_page()
    login_as(page, annotator)
    page.console_errors.clear()
    claim_by_keyboard(page, queue)
    # first pair: help, then a, b, e down the questions; k goes back and changes the second
    assert page.locator("#side-A").is_visible() and page.locator("#side-B").is_visible()
    page.keyboard.press("?")
    assert page.locator("#help-overlay").is_visible()
    page.keyboard.press("Escape")
    assert page.locator("#help-overlay").is_hidden()
    for key in ("a", "b", "e"):
        page.keyboard.press(key)
    assert page.locator('input[name="answer-0"][value="A"]').is_checked()
    assert page.locator('input[name="answer-2"][value="equal"]').is_checked()
    page.keyboard.press("k")
    page.keyboard.press("a")
    assert page.locator('input[name="answer-1"][value="A"]').is_checked()
    assert page.locator("#question-2.current").count() == 1
    page.keyboard.press("w")
    page.keyboard.type("A looked the order up before cancelling.")
    page.keyboard.press("Escape")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    # second pair: B everywhere, saved with Ctrl+Enter
    assert "/reviews/items/" in page.url
    for _ in range(3):
        page.keyboard.press("b")
    with page.expect_navigation():
        page.keyboard.press("Control+Enter")
    assert "Nothing left for you" in page.inner_text("body")
    answers = {a.item_id: a for a in Annotation.objects.filter(annotator=annotator)}
    first, second = (answers[item.pk] for item in items)
    assert [r["side"] for r in first.criteria_results] == ["A", "A", "equal"]
    assert first.explanation == "A looked the order up before cancelling."
    assert first.score == 0.5
    layout = pairwise_layout(items[1].pairwise)
    assert second.score == (0.0 if layout.candidate_on_left else 1.0)
    assert page.console_errors == []
