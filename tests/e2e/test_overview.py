"""The overview in real Chromium: every chart is drawn by plotly, with no console errors."""

import pytest

from evalsite.insights.overview import CHART_BUILDERS, overview_snapshot_clear
from tests.e2e.conftest import login_as
from tests.insights.world import insights_world

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def process_local_insights_cache(settings):
    # The live server thread shares this process's memory cache, never another run's files.
    settings.CACHES = {
        **settings.CACHES,
        "insights": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "insights-e2e",
        },
    }
    overview_snapshot_clear()
    yield
    overview_snapshot_clear()


def test_overview_draws_every_chart_without_console_errors(
    new_page, annotator, process_local_insights_cache
):
    insights_world()
    page = new_page()
    login_as(page, annotator)
    page.goto("/")
    for key in CHART_BUILDERS:
        chart = page.locator(f'#chart-{key}[data-rendered="true"]')
        chart.wait_for(timeout=15000)
        # plotly draws into an SVG; an empty-state figure would have no trace layer
        assert chart.locator("svg.main-svg").count() >= 1, key
        assert chart.locator(".trace, g.hm, g.heatmaplayer image, .bars").count() >= 1, key
    assert page.console_errors == []


def test_chart_csv_downloads_from_the_page(new_page, annotator, process_local_insights_cache):
    insights_world()
    page = new_page()
    login_as(page, annotator)
    page.goto("/")
    with page.expect_download() as download_info:
        page.locator("#card-flip_rate a", has_text="CSV").click()
    download = download_info.value
    assert download.suggested_filename == "flip_rate.csv"
    with open(download.path()) as handle:
        assert handle.readline().startswith("week,judge_version,verdicts,flips")
