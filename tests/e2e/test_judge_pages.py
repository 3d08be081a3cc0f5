"""Judging pages in Chromium: start a run, watch it finish live, preview a rubric on a trace."""

import re

import pytest

from demo.simulator.server import start_simulator
from judges.execution import judgment_execute
from judges.models import JudgeRun, Rubric
from tests.e2e.conftest import login_as
from tests.judges import sample_traces

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("built_in_rubrics"),
]


@pytest.fixture
def simulator(settings):
    handle = start_simulator()
    settings.ANTHROPIC_BASE_URL = handle.base_url
    yield handle
    handle.stop()


def test_a_curator_starts_a_run_and_sees_it_finish_without_reloading(new_page, curator, simulator):
    traces = [sample_traces.travel_book_ok(), sample_traces.support_confident_after_error()]
    version = Rubric.objects.get(name="Tool-call decision accuracy").versions.get(number=1)
    page = new_page()
    login_as(page, curator)

    page.goto("/judges/runs/new/")
    page.select_option("#id_rubric_version", str(version.pk))
    page.select_option("#id_config", label="default")
    page.fill("#id_trace_ids", " ".join(t.external_id for t in traces))
    page.click("main button[type=submit]")
    page.wait_for_url(re.compile(r"/judges/runs/\d+/$"))
    assert "0 of 4 passes finished" in page.locator("#run-progress").inner_text()

    run = JudgeRun.objects.get()
    for judgment in run.judgments.all():
        judgment_execute(judgment.pk)

    page.locator("[data-testid=run-status]", has_text="done").wait_for(timeout=10_000)
    progress = page.locator("#run-progress").inner_text()
    assert "4 of 4 passes finished" in progress
    assert page.locator("[data-testid=verdict-count]").inner_text() == "2"
    assert page.console_errors == []


def test_the_rubric_preview_shows_the_fenced_trace_escaped(new_page, annotator):
    trace = sample_traces.support_cancel_ok()
    trace.spans.filter(name="cancel_order").update(output={"note": "<img src=x id=pwned>"})
    rubric = Rubric.objects.get(name="Tool-call decision accuracy")
    page = new_page()
    login_as(page, annotator)

    page.goto(f"/judges/rubrics/{rubric.pk}/")
    page.select_option("#preview-trace", str(trace.pk))
    page.click("main button:has-text('Preview')")
    user_turn = page.locator("[data-testid=preview-user]")
    user_turn.wait_for()

    assert "<untrusted_trace>" in user_turn.inner_text()
    assert "<img src=x id=pwned>" in user_turn.inner_text()
    assert page.locator("#pwned").count() == 0
    assert page.console_errors == []
