"""Inter-annotator agreement per queue: Cohen's kappa for two raters, Krippendorff's alpha."""

import math
import warnings
from dataclasses import dataclass

from django.core.cache import cache
from django.db.models import Count, Max

from reviews.models import Annotation


@dataclass(frozen=True)
class Agreement:
    items: int  # items answered by two or more annotators
    raters: int
    cohen_kappa: float | None  # only when exactly two people rated
    krippendorff_alpha: float | None
    level: str  # level of measurement used for alpha

    @property
    def note(self) -> str:
        if self.items == 0:
            return "No item has two answers yet."
        if self.krippendorff_alpha is None and self.cohen_kappa is None:
            return "Every answer is the same score, so agreement is not defined."
        return ""


def _finite(value) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def ratings_agreement(ratings: list[tuple[int, int, float]]) -> Agreement:
    """Agreement of (item_id, rater_id, score) ratings; items need two ratings to count."""
    by_item: dict[int, dict[int, float]] = {}
    for item_id, rater_id, score in ratings:
        by_item.setdefault(item_id, {})[rater_id] = score
    by_item = {k: v for k, v in by_item.items() if len(v) >= 2}
    raters = sorted({r for scores in by_item.values() for r in scores})
    values = {s for scores in by_item.values() for s in scores.values()}
    # Two labels are categories; more are ordered scores (1-5), so near misses count.
    level = "nominal" if len(values) <= 2 and values <= {0.0, 1.0} else "ordinal"
    if not by_item or len(values) < 2:
        return Agreement(len(by_item), len(raters), None, None, level)
    # Loaded here: scikit-learn, scipy and numpy would double a web worker's memory otherwise.
    import krippendorff
    import numpy as np
    from sklearn.metrics import cohen_kappa_score

    items = sorted(by_item)
    matrix = np.full((len(raters), len(items)), np.nan)
    for col, item_id in enumerate(items):
        for rater_id, score in by_item[item_id].items():
            matrix[raters.index(rater_id), col] = score
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alpha = _finite(
            krippendorff.alpha(
                reliability_data=matrix,
                level_of_measurement=level,
                value_domain=sorted(values),
            )
        )
        kappa = None
        if len(raters) == 2:
            both = ~np.isnan(matrix).any(axis=0)
            if both.sum() >= 1:
                labels = [str(v) for v in matrix[0, both]], [str(v) for v in matrix[1, both]]
                kappa = _finite(cohen_kappa_score(*labels))
    return Agreement(len(items), len(raters), kappa, alpha, level)


def queue_agreement(queue) -> Agreement:
    """Agreement over the queue's items with two or more active, non-adjudication answers."""
    active = Annotation.objects.filter(
        item__queue=queue, undone_at__isnull=True, is_adjudication=False
    )
    shared_items = (
        active.values("item_id").annotate(n=Count("id")).filter(n__gte=2).values("item_id")
    )
    ratings = active.filter(item_id__in=shared_items).values_list(
        "item_id", "annotator_id", "score"
    )
    return ratings_agreement(list(ratings))


def answers_fingerprint() -> str:
    """Changes whenever anyone answers or undoes an answer (two index lookups)."""
    found = Annotation.objects.aggregate(last=Max("id"), undone=Max("undone_at"))
    undone = found["undone"].timestamp() if found["undone"] else 0
    return f"{found['last']}:{undone}"


def queue_agreement_cached(queue, fingerprint: str | None = None) -> Agreement:
    """queue_agreement, recomputed only after someone answers or undoes an answer."""
    key = f"reviews:agreement:{queue.pk}:{fingerprint or answers_fingerprint()}"
    found = cache.get(key)
    if found is None:
        found = queue_agreement(queue)
        cache.set(key, found, timeout=3600)
    return found
