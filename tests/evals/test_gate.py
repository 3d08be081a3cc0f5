"""The gate: fixed drops, per-metric overrides, the learned σ rule, and what the report says."""

import pytest

from core.errors import ApplicationError
from golden.evals.gate import GateConfig, gate_evaluate
from golden.models import DatasetVersion, EvalRun
from tests.evals.eval_runs import eval_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def dataset():
    return DatasetVersion.objects.create(name="support-v1", content_hash="x" * 64)


def _row(report, metric):
    return next(r for r in report["metrics"] if r["metric"] == metric)


def test_identical_runs_pass(dataset):
    report = gate_evaluate(eval_run(dataset, "a"), eval_run(dataset, "b"))
    assert report["decision"] == "pass" and report["blocked_by"] == []


def test_fixed_rule_blocks_a_drop_over_ten_percent_and_says_by_how_much(dataset):
    # given parameter accuracy falls from 0.92 to 0.80 (13%) and outcome stays
    report = gate_evaluate(eval_run(dataset, "a"), eval_run(dataset, "b", parameter_accuracy=0.80))
    # then
    row = _row(report, "parameter_accuracy")
    assert report["decision"] == "block" and report["blocked_by"] == ["parameter_accuracy"]
    assert row["rule"] == "fixed" and row["threshold"] == 0.10
    assert row["drop"] == pytest.approx(0.12)
    assert row["relative_drop"] == pytest.approx(0.12 / 0.92)
    assert "13.0%" in row["reason"] and "10%" in row["reason"]
    assert _row(report, "outcome_score")["blocked"] is False


def test_fixed_rule_lets_a_small_drop_through_and_per_metric_threshold_tightens_it(dataset):
    base, cand = eval_run(dataset, "a"), eval_run(dataset, "b", parameter_accuracy=0.88)  # 4.3%
    assert gate_evaluate(base, cand)["decision"] == "pass"
    tight = gate_evaluate(base, cand, GateConfig(metric_drops={"parameter_accuracy": 0.02}))
    assert tight["blocked_by"] == ["parameter_accuracy"]


def test_lower_is_better_metric_blocks_on_a_rise(dataset):
    report = gate_evaluate(eval_run(dataset, "a"), eval_run(dataset, "b", red_flag_rate=0.30))
    assert report["blocked_by"] == ["red_flag_rate"]


def test_learned_rule_blocks_beyond_k_sigma_of_noop_spread(dataset):
    # given three no-op runs whose parameter accuracy spreads with σ = 0.02, so a difference
    # of two runs spreads with σ·√2 = 0.0283 and the 2.5σ band is 0.0707
    for name, value in (("noop1", 0.90), ("noop2", 0.92), ("noop3", 0.94)):
        eval_run(dataset, name, noop=True, parameter_accuracy=value)
    base = eval_run(dataset, "base")
    # when one candidate drops 0.06 (inside the band) and another 0.08
    inside = gate_evaluate(base, eval_run(dataset, "inside", parameter_accuracy=0.86))
    outside = gate_evaluate(base, eval_run(dataset, "outside", parameter_accuracy=0.84))
    # then only the second blocks, and the report carries the noise band
    assert inside["decision"] == "pass"
    row = _row(outside, "parameter_accuracy")
    assert outside["blocked_by"] == ["parameter_accuracy"]
    assert row["rule"] == "learned"
    assert row["noise_band"]["sigma"] == pytest.approx(0.02)
    assert row["noise_band"]["sigma_diff"] == pytest.approx(0.02 * 2**0.5)
    assert row["noise_band"]["band"] == pytest.approx(2.5 * 0.02 * 2**0.5)
    assert row["noise_band"]["noop_runs"] == 3
    assert "2.5σ" in row["reason"]


def test_k_sets_the_width_of_the_band(dataset):
    for name, value in (("noop1", 0.90), ("noop2", 0.92), ("noop3", 0.94)):
        eval_run(dataset, name, noop=True, parameter_accuracy=value)
    base, cand = eval_run(dataset, "base"), eval_run(dataset, "cand", parameter_accuracy=0.86)
    # a drop of 0.06 sits between 2σ·√2 = 0.0566 and 2.5σ·√2 = 0.0707
    assert gate_evaluate(base, cand, GateConfig(sigma_k=2.0))["decision"] == "block"
    assert gate_evaluate(base, cand, GateConfig(sigma_k=2.5))["decision"] == "pass"


def test_learned_rule_tolerates_a_noisy_metric_that_the_fixed_rule_would_block(dataset):
    # given outcome swings by σ = 0.05 between runs of an unchanged agent
    for name, value in (("noop1", 0.85), ("noop2", 0.90), ("noop3", 0.95)):
        eval_run(dataset, name, noop=True, outcome_score=value)
    base = eval_run(dataset, "base")
    cand = eval_run(dataset, "cand", outcome_score=0.79)  # 12% drop; 0.11 < 2.5·0.05·√2 = 0.177
    # when / then
    assert gate_evaluate(base, cand, GateConfig(mode="fixed"))["blocked_by"] == ["outcome_score"]
    learned = gate_evaluate(base, cand)
    assert learned["decision"] == "pass"
    assert _row(learned, "outcome_score")["rule"] == "learned"


def test_auto_mode_falls_back_to_fixed_with_too_few_noop_runs(dataset):
    eval_run(dataset, "noop1", noop=True)
    eval_run(dataset, "noop2", noop=True, parameter_accuracy=0.90)
    report = gate_evaluate(eval_run(dataset, "a"), eval_run(dataset, "b"))
    assert {r["rule"] for r in report["metrics"]} == {"fixed"}
    assert report["noise"]["noop_runs"] != []


def test_k_outside_two_to_three_and_unscored_runs_are_refused(dataset):
    base = eval_run(dataset, "a")
    with pytest.raises(ApplicationError) as k_error:
        gate_evaluate(base, base, GateConfig(sigma_k=4))
    assert k_error.value.field == "k"
    unscored = EvalRun.objects.create(name="new", agent_version="2", dataset_version=dataset)
    with pytest.raises(ApplicationError) as scored_error:
        gate_evaluate(base, unscored)
    assert scored_error.value.field == "candidate"
