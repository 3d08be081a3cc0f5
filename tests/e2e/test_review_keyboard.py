"""An annotator works three items with the keyboard only, and the help overlay opens with ?."""

import pytest

from reviews.models import Annotation, ReviewStatus
from tests.e2e.conftest import claim_by_keyboard, login_as
from tests.factories import QueueFactory, ReviewItemFactory, SpanFactory, TraceFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

TASKS = [
    "Cancel my most recent order, it was placed by mistake.",
    "Find me a hotel in Porto for 12-14 May under 120 EUR a night.",
    "The CI job fails on test_parse_dates; fix the timezone bug.",
]


def test_annotator_works_three_items_with_the_keyboard_only(new_page, annotator):
    queue = QueueFactory(name="Tool calls")
    for task in TASKS:
        trace = TraceFactory(task=task)
        SpanFactory(trace=trace, name="lookup", output={"status": "ok"})
        ReviewItemFactory(queue=queue, trace=trace)
    page = new_page()
    login_as(page, annotator)
    page.console_errors.clear()  # only the review pages are under test
    # The start button has focus: Enter claims the first item
    claim_by_keyboard(page, queue)
    for index, score in enumerate(["1", "0", "1"]):
        assert "/reviews/items/" in page.url
        assert TASKS[index] in page.locator("#trace-task").inner_text()
        if index == 0:
            page.keyboard.press("?")
            assert page.locator("#help-overlay").is_visible()
            page.keyboard.press("Escape")
            assert page.locator("#help-overlay").is_hidden()
        page.keyboard.press(score)
        assert page.locator(f'input[name=score][value="{score}"]').is_checked()
        page.keyboard.press("e")
        page.keyboard.type(f"Checked item {index + 1} step by step.")
        with page.expect_navigation():
            page.keyboard.press("Control+Enter")
    # After the third item the queue page says nothing is left
    assert page.url.endswith(f"/reviews/queues/{queue.pk}/")
    assert "Nothing left for you" in page.inner_text("body")
    answers = Annotation.objects.filter(annotator=annotator).order_by("created_at")
    assert [a.score for a in answers] == [1, 0, 1]
    assert answers[2].explanation == "Checked item 3 step by step."
    assert queue.items.filter(status=ReviewStatus.RESOLVED).count() == 3
    assert page.console_errors == []


def test_arrow_keys_skip_and_go_back_to_the_previous_answer(new_page, annotator):
    queue = QueueFactory(name="Coding agents")
    first, second = (
        ReviewItemFactory(queue=queue, trace=TraceFactory(task=task)) for task in TASKS[:2]
    )
    page = new_page()
    login_as(page, annotator)
    page.console_errors.clear()
    claim_by_keyboard(page, queue)
    assert page.url.endswith(f"/reviews/items/{first.pk}/")
    page.keyboard.press("1")
    with page.expect_navigation():
        page.keyboard.press("Control+Enter")
    assert page.url.endswith(f"/reviews/items/{second.pk}/")
    # Left goes back to the answer just given, where it can be undone with u
    with page.expect_navigation():
        page.keyboard.press("ArrowLeft")
    assert page.url.endswith(f"/reviews/items/{first.pk}/")
    with page.expect_navigation():
        page.keyboard.press("u")
    first.refresh_from_db()
    assert first.status == ReviewStatus.OPEN
    assert first.claimed_by == annotator
    assert "open again for your answer" in page.inner_text("body")
    # Right skips the reopened item and returns to the one still held
    with page.expect_navigation():
        page.keyboard.press("ArrowRight")
    assert page.url.endswith(f"/reviews/items/{second.pk}/")
    assert first.skips.filter(user=annotator).exists()
    assert page.console_errors == []
