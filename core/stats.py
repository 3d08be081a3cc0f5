"""Agreement and rate statistics on plain arrays; no database access here."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy loads where used: most web requests never need it
    import numpy as np

Z_95 = 1.959963984540054


def wilson_interval(successes: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """95% Wilson score interval of a proportion; (0, 0) when there is nothing to measure."""
    if n <= 0:
        return (0.0, 0.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _weight_matrix(k: int, weights: str | None) -> np.ndarray:
    """Disagreement weights as scikit-learn defines them, over label positions."""
    import numpy as np

    i, j = np.indices((k, k))
    if weights is None:
        return (i != j).astype(float)
    if weights == "linear":
        return np.abs(i - j).astype(float)
    if weights == "quadratic":
        return ((i - j) ** 2).astype(float)
    raise ValueError(f"unknown weights {weights!r}")


def confusion_matrix(
    first: Sequence[float], second: Sequence[float], labels: Sequence[float]
) -> np.ndarray:
    """Rows are `first`'s labels, columns `second`'s; pairs outside `labels` are dropped."""
    import numpy as np

    position = {label: index for index, label in enumerate(labels)}
    k = len(labels)
    matrix = np.zeros((k, k), dtype=np.int64)
    for a, b in zip(first, second, strict=True):
        if a in position and b in position:
            matrix[position[a], position[b]] += 1
    return matrix


def kappa_from_confusion(matrix: np.ndarray, weights: str | None = None) -> float:
    """Cohen's kappa of a k x k (or a stack of B x k x k) confusion matrix; nan if undefined."""
    import numpy as np

    matrix = np.asarray(matrix, dtype=float)
    k = matrix.shape[-1]
    w = _weight_matrix(k, weights)
    total = matrix.sum(axis=(-2, -1), keepdims=True)
    rows = matrix.sum(axis=-1, keepdims=True)
    cols = matrix.sum(axis=-2, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = rows * cols / total
        observed_disagreement = (w * matrix).sum(axis=(-2, -1))
        expected_disagreement = (w * expected).sum(axis=(-2, -1))
        kappa = 1 - observed_disagreement / expected_disagreement
    return kappa if kappa.ndim else float(kappa)


def labels_of(first: Sequence[float], second: Sequence[float]) -> list[float]:
    return sorted(set(first) | set(second))


def cohen_kappa(
    first: Sequence[float],
    second: Sequence[float],
    labels: Sequence[float] | None = None,
    weights: str | None = None,
) -> float:
    """Cohen's kappa, weighted ("linear"/"quadratic") for ordinal scales; as scikit-learn."""
    labels = list(labels) if labels is not None else labels_of(first, second)
    return kappa_from_confusion(confusion_matrix(first, second, labels), weights)


def kappa_bootstrap_interval_of_confusion(
    matrix: np.ndarray, weights: str | None = None, resamples: int = 1000, seed: int = 0
) -> tuple[float | None, float | None]:
    """Percentile 95% bootstrap interval of kappa over the pairs a confusion matrix counts.

    Drawing n pairs with replacement gives cell counts that are multinomial in the cells'
    shares, so each resample is drawn on the k x k cells: the cost does not grow with n, and
    equal matrices (however their pairs were gathered) give equal intervals."""
    import numpy as np

    matrix = np.asarray(matrix, dtype=np.int64)
    n, k = int(matrix.sum()), matrix.shape[-1]
    if n < 2 or k < 2 or resamples <= 0:
        return (None, None)
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(n, matrix.ravel() / n, size=resamples).reshape(resamples, k, k)
    kappas = kappa_from_confusion(draws, weights)
    kappas = kappas[np.isfinite(kappas)]
    if kappas.size == 0:
        return (None, None)
    low, high = np.percentile(kappas, [2.5, 97.5])
    return (float(low), float(high))


@dataclass
class Agreement:
    """Judge-vs-person agreement over one set of paired scores."""

    labels: list[float]
    matrix: list[list[int]]
    n: int
    percent_agreement: float | None
    kappa: float | None
    kappa_low: float | None
    kappa_high: float | None
    weights: str | None

    def as_dict(self) -> dict:
        return self.__dict__.copy()

    @property
    def rows(self) -> list[tuple[float, list[int]]]:
        """The matrix a row a judge score: (the score, the count for each person's score)."""
        return list(zip(self.labels, self.matrix, strict=True))


def _finite(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def agreement_measure(
    first: Sequence[float],
    second: Sequence[float],
    *,
    ordinal: bool,
    labels: Sequence[float] | None = None,
    resamples: int = 1000,
) -> Agreement:
    """Confusion matrix, % agreement, kappa (linear-weighted if ordinal) and its bootstrap CI."""
    labels = list(labels) if labels is not None else labels_of(first, second)
    matrix = confusion_matrix(first, second, labels)
    return agreement_of_confusion(matrix, labels, ordinal=ordinal, resamples=resamples)


def agreement_of_confusion(
    matrix: np.ndarray,
    labels: Sequence[float],
    *,
    ordinal: bool,
    resamples: int = 1000,
    intervals: dict | None = None,
) -> Agreement:
    """The same measures from counted pairs: rows the first rater's labels, columns the second's.

    `intervals`, when given, holds bootstrap intervals by matrix: a matrix met before reuses
    its interval (the draw is seeded, so it is the one computed again); each one used is set."""
    import numpy as np

    labels = list(labels)
    weights = "linear" if ordinal and len(labels) > 2 else None
    matrix = np.asarray(matrix, dtype=np.int64)
    n = int(matrix.sum())
    agree = float(np.trace(matrix)) / n if n else None
    kappa = _finite(kappa_from_confusion(matrix, weights)) if n else None
    low, high = (None, None)
    if n:
        key = (matrix.shape[-1], tuple(matrix.ravel().tolist()), weights, resamples)
        known = intervals.get(key) if intervals is not None else None
        low, high = known or kappa_bootstrap_interval_of_confusion(matrix, weights, resamples)
        if intervals is not None:
            intervals[key] = (low, high)
    return Agreement(
        labels=labels,
        matrix=matrix.tolist(),
        n=n,
        percent_agreement=agree,
        kappa=kappa,
        kappa_low=low,
        kappa_high=high,
        weights=weights,
    )
