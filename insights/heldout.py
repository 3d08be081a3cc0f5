"""The judge's agreement with people on held-out golden examples, kept apart from calibration."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Count, OuterRef, Subquery

from core.stats import agreement_measure
from insights.flips import judge_version_label
from judges.calibration import rubric_version_scale
from judges.models import RubricVersion, Verdict
from reviews.models import ReviewItem, ReviewStatus


def held_out_agreement() -> list[dict]:
    """Per judge version: verdicts on held-out golden traces against the person's resolution."""
    human = (
        ReviewItem.objects.filter(
            trace_id=OuterRef("trace_id"),
            rubric_version_id=OuterRef("rubric_version_id"),
            status=ReviewStatus.RESOLVED,
            resolved_score__isnull=False,
        )
        .order_by("-resolved_at")
        .values("resolved_score")[:1]
    )
    cells = (
        Verdict.objects.filter(trace__held_out=True, score__isnull=False)
        .annotate(human=Subquery(human))
        .filter(human__isnull=False)
        .values(
            "rubric_version_id",
            "rubric_version__rubric__name",
            "rubric_version__number",
            "config__model",
            "score",
            "human",
        )
        .annotate(n=Count("id", distinct=True))
    )
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for cell in cells:
        label = judge_version_label(
            cell["rubric_version__rubric__name"],
            cell["rubric_version__number"],
            cell["config__model"],
        )
        groups[(cell["rubric_version_id"], label)].append(cell)
    versions = RubricVersion.objects.in_bulk({version_id for version_id, _ in groups})
    results = []
    for (version_id, label), rows in sorted(groups.items(), key=lambda kv: kv[0][1]):
        scale, ordinal = rubric_version_scale(versions[version_id])
        judge = [r["score"] for r in rows for _ in range(r["n"])]
        person = [r["human"] for r in rows for _ in range(r["n"])]
        if scale is not None and not set(judge) | set(person) <= set(scale):
            scale = None
        measure = agreement_measure(judge, person, ordinal=ordinal, labels=scale)
        results.append({"judge_version": label, "measure": measure})
    return results
