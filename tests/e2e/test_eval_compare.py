"""A person picks two eval runs, sees the task that got worse first, and opens its trace."""

import pytest

from tests.e2e.conftest import login_as
from tests.evals.golden_set import (
    eval_run_scored,
    golden_version_create,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_compare_two_runs_and_open_the_worse_trace(new_page, annotator):
    # given a baseline and a candidate that hallucinated an order id
    dataset = golden_version_create()
    base = eval_run_scored("1.4.0", "ci-812-base", dataset)
    cand = eval_run_scored("1.5.0", "ci-813-cand", dataset)
    page = new_page()
    login_as(page, annotator)
    # when the annotator picks both runs on the eval-run list
    page.goto("/golden/evals/")
    page.select_option("#baseline", str(base.pk))
    page.select_option("#candidate", str(cand.pk))
    page.click("text=Compare")
    # then the cancellation task is first and marked worse
    first = page.locator("table.compare-tasks tbody tr").first
    assert first.get_attribute("data-key") == "cancel-recent-order"
    assert "worse" in first.inner_text()
    # overall parameter accuracy fell from 1.000 to (0.5 + 1 + 1) / 3: on the cancellation
    # task the wrong write counts 0 and the lookup its id comes from 1
    assert "-0.167" in page.locator("#metric-parameter_accuracy").inner_text()
    # and one click opens the candidate's trace of that task
    trace_id = cand.trials.get(entry__example_key="cancel-recent-order").trace_id
    first.locator("td").last.locator("a").first.click()
    page.wait_for_url(f"**/traces/{trace_id}/")
    assert "cancel_order" in page.content()
    assert page.console_errors == []
