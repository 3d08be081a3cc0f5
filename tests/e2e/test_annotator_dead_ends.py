"""What an annotator is offered leads somewhere: links they may follow, undo of their last
answer only, and a calibration page that says why uncalibrated judges score live traffic."""

import pytest

from reviews.models import Annotation, ReviewStatus
from tests.e2e.conftest import claim_by_keyboard, login_as
from tests.factories import (
    QueueFactory,
    ReviewItemFactory,
    SpanFactory,
    TraceFactory,
    UserFactory,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_trace_page_links_only_the_review_items_the_annotator_may_open(new_page, annotator):
    # given a trace with an item this annotator answered and one nobody has claimed
    trace = TraceFactory(task="Cancel order A1042.")
    SpanFactory(trace=trace, name="cancel_order")
    queue = QueueFactory(name="Tool calls")
    answered = ReviewItemFactory(queue=queue, trace=trace, status=ReviewStatus.RESOLVED)
    Annotation.objects.create(item=answered, annotator=annotator, score=1)
    unclaimed = ReviewItemFactory(queue=queue, trace=trace)
    page = new_page()
    login_as(page, annotator)
    # when
    page.goto(f"/traces/{trace.pk}/")
    items = page.locator("#trace-review-items")
    # then only the answered item links to its page, the other to its queue
    hrefs = items.locator("a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert f"/reviews/items/{answered.pk}/" in hrefs
    assert f"/reviews/items/{unclaimed.pk}/" not in hrefs
    assert f"/reviews/queues/{queue.pk}/" in hrefs
    assert "claim it from the queue" in items.inner_text()
    # and every link offered opens
    for href in hrefs:
        assert page.request.get(href).status == 200, href


def test_a_curator_sees_every_review_item_linked(new_page, curator):
    trace = TraceFactory(task="Cancel order A1042.")
    item = ReviewItemFactory(queue=QueueFactory(name="Tool calls"), trace=trace)
    page = new_page()
    login_as(page, curator)
    page.goto(f"/traces/{trace.pk}/")
    link = page.locator(f"#trace-review-items a[href='/reviews/items/{item.pk}/']")
    assert link.count() == 1


def test_after_undoing_an_answer_no_older_answer_is_offered_for_undo(new_page, annotator):
    # given two items answered one after the other (a third keeps the queue going)
    queue = QueueFactory(name="Support")
    first, second, _third = (
        ReviewItemFactory(queue=queue, trace=TraceFactory(task=f"Task {n}")) for n in range(3)
    )
    page = new_page()
    login_as(page, annotator)
    claim_by_keyboard(page, queue)
    for expected in (first, second):
        assert page.url.endswith(f"/reviews/items/{expected.pk}/")
        page.keyboard.press("1")
        with page.expect_navigation():
            page.keyboard.press("Control+Enter")
    # the bar offers to undo the last answer
    assert page.locator("#undo-form").inner_text().startswith(f"Saved item #{second.pk}.")
    # when it is undone
    with page.expect_navigation():
        page.locator("#undo-form button").click()
    # then the item is back, and the answer before it is not offered for undo
    assert page.url.endswith(f"/reviews/items/{second.pk}/")
    assert "open again for your answer" in page.inner_text("body")
    assert page.locator("#undo-form").count() == 0
    assert f"Saved item #{first.pk}" not in page.inner_text("body")
    # answering it again offers that answer's undo
    page.keyboard.press("0")
    with page.expect_navigation():
        page.keyboard.press("Control+Enter")
    assert page.locator("#undo-form").inner_text().startswith(f"Saved item #{second.pk}.")


@pytest.mark.parametrize("before_calibration", [True, False])
def test_the_calibration_page_says_when_uncalibrated_judges_score_live_traffic(
    new_page, settings, before_calibration
):
    settings.JUDGE_SIMULATED = True
    settings.JUDGE_ONLINE_BEFORE_CALIBRATION = before_calibration
    page = new_page()
    login_as(page, UserFactory(username="cora", roles=["curator"]))
    page.goto("/insights/calibration/")
    banner = page.locator("#online-before-calibration")
    if before_calibration:
        text = banner.inner_text()
        assert "score live traffic too" in text and "simulated judge" in text
        assert "JUDGE_ONLINE_BEFORE_CALIBRATION" in text
    else:
        assert banner.count() == 0
