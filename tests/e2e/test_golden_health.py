import pytest

from tests.e2e.conftest import login_as
from tests.golden.builders import example

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_health_page_draws_its_charts_with_local_plotly(new_page, curator, annotator):
    # given examples of two task types, one held out
    for n in range(3):
        example(task=f"Cancel order A{n}", failure_tags=["wrong_order"])
    example(task="Rebook HELDOUT-FLIGHT", task_type="flight_rebooking", held_out=True)
    page = new_page()
    login_as(page, curator)
    # when the curator opens the health page
    page.goto("/golden/health/")
    # then the three charts are drawn by plotly, without console errors
    page.wait_for_selector("#chart-task-types .main-svg")
    for chart in ("#chart-size", "#chart-task-types", "#chart-failure-modes"):
        assert page.locator(f"{chart} .main-svg").count() >= 1
    assert "flight rebooking" in page.locator("#chart-task-types").inner_text()
    assert page.console_errors == []
    # labels are whole inside their chart, and count axes tick in whole numbers
    for chart in ("#chart-task-types", "#chart-failure-modes"):
        left = page.locator(chart).bounding_box()["x"]
        boxes = page.eval_on_selector_all(
            f"{chart} .ytick text", "els => els.map(e => e.getBoundingClientRect().left)"
        )
        assert boxes and min(boxes) >= left, chart
        ticks = page.eval_on_selector_all(
            f"{chart} .xtick text", "els => els.map(e => e.textContent)"
        )
        assert ticks and all("." not in t for t in ticks), ticks

    # and an annotator's charts leave the held-out task type out
    other = new_page()
    login_as(other, annotator)
    other.goto("/golden/health/")
    other.wait_for_selector("#chart-task-types .main-svg")
    assert "flight rebooking" not in other.locator("#chart-task-types").inner_text()
    assert other.locator("#dataset-size").inner_text() == "3"
