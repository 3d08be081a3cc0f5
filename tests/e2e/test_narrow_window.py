"""Every main page fits a 1024 px window as well as a 1400 px one: the top bar wraps as a
whole, and a table wider than the window scrolls in its own box, never the page."""

import pytest

from tests.e2e.conftest import login_as
from tests.factories import ReviewItemFactory, SpanFactory, TraceFactory, UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PAGES = [
    "/",
    "/insights/agent/",
    "/traces/",
    "/traces/sessions/",
    "/judges/rubrics/",
    "/judges/runs/",
    "/reviews/",
    "/golden/",
    "/golden/evals/",
    "/insights/calibration/",
]
LONG_TASK = (
    "Rebook every leg of trip TR-55190 for the whole family after the strike, keeping the "
    "aisle seats and the vegetarian meals, and send the new itinerary to both addresses."
)


@pytest.mark.parametrize("width", [1024, 1400])
def test_no_page_runs_off_the_right_edge(new_page, width):
    # given a day of traces with long values, some with errors and open review items
    for n in range(60):
        trace = TraceFactory(
            task=LONG_TASK,
            agent_name="travel-rebooking-agent",
            agent_version=f"2.14.{n}-rc.{n}",
            input_tokens=1_234_567 + n,
            error_count=n % 7 == 0,
        )
        SpanFactory(trace=trace, name="search_flights_with_flexible_dates")
        if n % 10 == 0:
            ReviewItemFactory(trace=trace)
    page = new_page()
    page.set_viewport_size({"width": width, "height": 900})
    login_as(page, UserFactory(username="ada", roles=["admin", "curator", "annotator"]))
    trace_page = f"/traces/{trace.pk}/"
    for path in [*PAGES, trace_page]:
        page.goto(path)
        # then nothing makes the page wider than the window
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{path} is {overflow} px wider than {width} px"
        # and every link of the top bar is whole inside the window
        cut = page.evaluate(
            "[...document.querySelectorAll('header a')]"
            ".filter(a => a.getBoundingClientRect().right > window.innerWidth)"
            ".map(a => a.textContent)"
        )
        assert cut == [], f"{path}: {cut} run off the top bar"
    assert page.console_errors == []
