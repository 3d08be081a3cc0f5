"""The overview in real Chromium: every chart is drawn by plotly, with no console errors."""

import pytest

from insights.overview import CHART_BUILDERS
from tests.e2e.conftest import login_as
from tests.insights.world import insights_world

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


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


def test_curator_reaches_a_judge_versions_matrix_in_one_click(
    new_page, curator, process_local_insights_cache
):
    from judges.calibration import judge_calibration_update
    from tests.factories import JudgeRunFactory

    run = JudgeRunFactory()
    judge_calibration_update(run.rubric_version, run.config, [(1.0, 1.0), (0.0, 0.0)] * 15)
    page = new_page()
    login_as(page, curator)
    page.goto("/")
    page.click("nav.mainnav >> text=Calibration")
    page.click("text=Matrix and disagreements")
    assert page.locator("#calibration-status").inner_text() == "approved"
    assert page.locator("#confusion-matrix").is_visible()
    assert page.console_errors == []


# Sizes of what plotly drew in each chart's plot area: bars and markers are paths, heatmaps
# an image; a chart "drew nothing" when every mark is under a pixel wide or tall.
MARK_SIZES = """node => Array.from(
  node.querySelectorAll('.cartesianlayer .trace path, .cartesianlayer image')
).map(el => { const box = el.getBoundingClientRect(); return [box.width, box.height]; })"""


def test_on_one_day_of_data_every_chart_draws_visible_marks(
    new_page, annotator, process_local_insights_cache
):
    insights_world(days=1)
    page = new_page()
    page.set_viewport_size({"width": 1400, "height": 900})
    login_as(page, annotator)
    page.goto("/")
    for key in CHART_BUILDERS:
        chart = page.locator(f'#chart-{key}[data-rendered="true"]')
        chart.wait_for(timeout=15000)
        sizes = chart.evaluate(MARK_SIZES)
        visible = [(w, h) for w, h in sizes if w >= 2 and h >= 2]
        assert visible, f"{key} drew no visible mark: {sizes[:5]}"
    for key in ("queue_flow", "judge_cost"):
        bars = page.locator(f"#chart-{key} .barlayer path").evaluate_all(
            "els => els.map(el => el.getBoundingClientRect().width)"
        )
        assert bars and min(bars) >= 4, (key, bars)
    assert page.console_errors == []
