"""On a long trace, Submit, Skip and Flag stay in view at 1400x900 and 1280x720; undo refills."""

import pytest

from reviews.models import Annotation
from tests.e2e.conftest import login_as
from tests.factories import QueueFactory, ReviewItemFactory, SpanFactory, TraceFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _in_view(page, selector) -> bool:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= size["height"]


@pytest.mark.parametrize("width,height", [(1400, 900), (1280, 720)])
def test_submit_skip_and_flag_are_visible_without_scrolling(new_page, annotator, width, height):
    queue = QueueFactory(name="Disputes")
    for _ in range(2):
        trace = TraceFactory(task="Rebook my cancelled flight to Berlin for tomorrow morning.")
        for n in range(12):
            SpanFactory(trace=trace, name=f"tool_{n}", output={"rows": list(range(20))})
        ReviewItemFactory(queue=queue, trace=trace)
    page = new_page()
    page.set_viewport_size({"width": width, "height": height})
    login_as(page, annotator)
    page.goto(f"/reviews/queues/{queue.pk}/")
    with page.expect_navigation():
        page.locator("form[action$='/claim/'] button").first.click()
    for selector in ("#submit-button", "#skip-form button", "#flag-form button"):
        assert _in_view(page, selector), selector
    assert "2 left in this queue" in page.locator("#review-progress").inner_text()
    # Pick a score and submit with the visible button
    page.locator('input[name=score][value="1"]').check()
    page.fill("#id_explanation", "Rebooked on the right day.")
    with page.expect_navigation():
        page.click("#submit-button")
    assert page.locator("body").inner_text().count("Saved item") == 1
    # Undo brings back the answer just given
    with page.expect_navigation():
        page.click("#undo-form button")
    assert page.locator('input[name=score][value="1"]').is_checked()
    assert page.input_value("#id_explanation") == "Rebooked on the right day."
    assert Annotation.objects.filter(undone_at__isnull=False).count() == 1
    assert page.console_errors == []
