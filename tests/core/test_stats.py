"""Agreement statistics match hand-computed values and maintained libraries."""

import numpy as np
import pytest
from scipy.stats import binomtest
from sklearn.metrics import cohen_kappa_score

from core.stats import (
    agreement_measure,
    cohen_kappa,
    kappa_from_confusion,
    wilson_interval,
)

JUDGE = [1, 1, 0, 0, 1, 0, 1, 1, 0, 1]
HUMAN = [1, 0, 0, 0, 1, 1, 1, 1, 0, 1]


def test_binary_kappa_matches_hand_computation():
    # po = 8/10, pe = (4*4 + 6*6)/100 = 0.52, kappa = (0.8 - 0.52) / 0.48
    assert cohen_kappa(JUDGE, HUMAN) == pytest.approx(0.28 / 0.48)


def test_linear_weighted_kappa_matches_hand_computation():
    # observed weighted disagreement 2, expected 3.5 -> 1 - 2/3.5
    assert cohen_kappa([1, 2, 3, 3], [1, 3, 3, 2], weights="linear") == pytest.approx(3 / 7)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_matches_scikit_learn_on_ordinal_scores(weights):
    rng = np.random.default_rng(7)
    human = rng.integers(1, 6, size=300)
    judge = np.clip(human + rng.integers(-1, 2, size=300), 1, 5)
    ours = cohen_kappa(judge.tolist(), human.tolist(), weights=weights)
    assert ours == pytest.approx(cohen_kappa_score(judge, human, weights=weights))


def test_kappa_with_explicit_labels_matches_scikit_learn():
    judge, human = [1, 2, 2, 4], [1, 2, 3, 4]
    labels = [1, 2, 3, 4, 5]
    ours = cohen_kappa(judge, human, labels=labels, weights="linear")
    assert ours == pytest.approx(cohen_kappa_score(judge, human, labels=labels, weights="linear"))


def test_wilson_interval_matches_scipy():
    low, high = wilson_interval(12, 100)
    reference = binomtest(12, 100).proportion_ci(method="wilson")
    assert (low, high) == pytest.approx((reference.low, reference.high))


def test_wilson_interval_of_nothing_is_empty():
    assert wilson_interval(0, 0) == (0.0, 0.0)


def test_bootstrap_interval_brackets_the_point_estimate_and_narrows_with_data():
    rng = np.random.default_rng(3)
    human = rng.integers(0, 2, size=400)
    judge = np.where(rng.random(400) < 0.85, human, 1 - human)
    kappa = cohen_kappa(judge.tolist(), human.tolist())
    whole = agreement_measure(judge.tolist(), human.tolist(), ordinal=False)
    small = agreement_measure(judge[:40].tolist(), human[:40].tolist(), ordinal=False)
    low, high = whole.kappa_low, whole.kappa_high
    small_low, small_high = small.kappa_low, small.kappa_high
    assert low < kappa < high
    assert (high - low) < (small_high - small_low)


def test_bootstrap_over_cells_matches_resampling_the_pairs_themselves():
    # given 600 ordinal pairs, and the interval of resampling them one by one
    rng = np.random.default_rng(11)
    human = rng.integers(1, 6, size=600)
    judge = np.clip(human + rng.integers(-1, 2, size=600), 1, 5)
    codes = (judge - 1) * 5 + (human - 1)
    picks = codes[rng.integers(0, 600, size=(4000, 600))]
    stack = np.stack([np.bincount(row, minlength=25).reshape(5, 5) for row in picks])
    kappas = kappa_from_confusion(stack, "linear")
    by_pairs = np.percentile(kappas, [2.5, 97.5])
    # when the interval is drawn on the confusion matrix's cells instead
    cells = agreement_measure(judge.tolist(), human.tolist(), ordinal=True, resamples=4000)
    low, high = cells.kappa_low, cells.kappa_high
    # then it is the same interval, up to the bootstrap's own noise
    assert (low, high) == pytest.approx(tuple(by_pairs), abs=0.01)


def test_agreement_measure_reports_matrix_agreement_and_kappa():
    result = agreement_measure(JUDGE, HUMAN, ordinal=False)
    assert result.matrix == [[3, 1], [1, 5]]
    assert result.percent_agreement == pytest.approx(0.8)
    assert result.kappa == pytest.approx(cohen_kappa_score(JUDGE, HUMAN))
    assert result.weights is None


def test_agreement_measure_weights_ordinal_scales_linearly():
    result = agreement_measure([1, 2, 3, 3], [1, 3, 3, 2], ordinal=True)
    assert result.weights == "linear"
    assert result.kappa == pytest.approx(3 / 7)


def test_kappa_is_undefined_when_both_raters_use_one_label():
    result = agreement_measure([1, 1, 1], [1, 1, 1], ordinal=False)
    assert result.percent_agreement == 1.0
    assert result.kappa is None
