"""Eval runs per agent version, with the no-op runs' noise band."""

from statistics import fmean, stdev

import pytest

from golden.models import DatasetVersion, EvalRun
from insights.evalruns import eval_run_chart, eval_run_rows, noise_band

pytestmark = pytest.mark.django_db


def run(version, outcome, noop=False):
    dataset, _ = DatasetVersion.objects.get_or_create(name="v1", defaults={"content_hash": "0"})
    return EvalRun.objects.create(
        name=f"{version} run",
        agent_version=version,
        dataset_version=dataset,
        is_noop=noop,
        metrics={"overall": {"outcome_score": outcome, "pass_hat_k": outcome / 2}},
    )


def test_noise_band_is_mean_plus_minus_two_sd_of_noop_runs():
    for outcome in (0.80, 0.82, 0.78):
        run("1.4.0", outcome, noop=True)
    run("1.5.0", 0.60)
    rows = eval_run_rows()
    low, high = noise_band(rows, "outcome_score")
    values = [0.80, 0.82, 0.78]
    assert low == pytest.approx(fmean(values) - 2 * stdev(values))
    assert high == pytest.approx(fmean(values) + 2 * stdev(values))
    assert rows[-1]["agent_version"] == "1.5.0"
    assert rows[-1]["parameter_accuracy"] is None  # a metric the run did not report


def test_chart_has_a_panel_per_metric_and_bands_only_where_noop_runs_exist():
    run("1.4.0", 0.8, noop=True)
    run("1.4.0", 0.81, noop=True)
    run("1.5.0", 0.7)
    chart = eval_run_chart()
    assert len(chart.figure["data"]) == 4
    # outcome and pass^k have no-op spread; tool selection and parameter accuracy do not
    assert {shape["yref"] for shape in chart.figure["layout"]["shapes"]} == {"y", "y4"}


def test_single_noop_run_gives_no_band():
    run("1.4.0", 0.8, noop=True)
    assert noise_band(eval_run_rows(), "outcome_score") is None
