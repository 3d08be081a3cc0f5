"""Reads for golden pages and API. Held-out examples are filtered here and only here."""

from collections import Counter

from django.core.exceptions import PermissionDenied
from django.db.models import Count, Exists, OuterRef, Q, QuerySet
from django.shortcuts import get_object_or_404

from accounts.roles import ANNOTATOR, has_role
from golden.models import DatasetVersion, DatasetVersionEntry, EvalTrial, GoldenExample
from reviews.models import Annotation, ReviewItem, ReviewStatus
from traces.selectors import sees_held_out

# Guidance on dataset size: ~50 examples catch major regressions; 150-200 see a 5% shift.
SIZE_MAJOR_REGRESSIONS = 50
SIZE_FIVE_PERCENT_SHIFT = (150, 200)


# Newest first; the index golden_example_newest serves it, the id breaks ties.
EXAMPLE_ORDER = ("-created_at", "-id")


def golden_examples_visible(user) -> QuerySet[GoldenExample]:
    """Every read of examples starts here, so held-out rows never leak to other roles."""
    if not has_role(user, ANNOTATOR):
        return GoldenExample.objects.none()
    examples = GoldenExample.objects.all()
    return examples if sees_held_out(user) else examples.filter(held_out=False)


def dataset_entries_visible(user, version: DatasetVersion) -> QuerySet[DatasetVersionEntry]:
    """Entries of a version the user may see (open ones, plus held-out for curators)."""
    if not has_role(user, ANNOTATOR):
        return DatasetVersionEntry.objects.none()
    entries = version.entries.all()
    return entries if sees_held_out(user) else entries.filter(held_out=False)


def golden_example_get_for_user(user, pk: int) -> GoldenExample:
    """The access helper for one example: 404 when it does not exist or is hidden."""
    examples = golden_examples_visible(user).select_related(
        "source_trace", "source_review_item", "created_by", "outcome_rubric"
    )
    return get_object_or_404(examples, pk=pk)


def golden_example_list(
    user, *, task_type: str = "", held_out: str = "", query: str = "", draft: str = ""
) -> QuerySet[GoldenExample]:
    """Examples for the list page and API, newest first, filtered."""
    examples = (
        golden_examples_visible(user)
        .select_related("created_by", "source_trace")
        .defer("source_trace__attributes", "source_trace__context")
    )
    if task_type:
        examples = examples.filter(task_type=task_type)
    if held_out in ("yes", "no") and sees_held_out(user):
        examples = examples.filter(held_out=held_out == "yes")
    if query:
        examples = examples.filter(task__icontains=query)
    if draft in ("yes", "no"):
        examples = examples.filter(draft=draft == "yes")
    return examples.order_by(*EXAMPLE_ORDER)


def golden_task_types(user) -> list[str]:
    """Task types of the examples this user may see, for filters."""
    return list(
        golden_examples_visible(user)
        .order_by("task_type")
        .values_list("task_type", flat=True)
        .distinct()
    )


def version_visible_count(user, version: DatasetVersion) -> int:
    """How many examples of a version this user may know of."""
    if sees_held_out(user):
        return version.example_count
    return version.example_count - version.held_out_count


def dataset_version_get_for_user(user, pk: int) -> DatasetVersion:
    """The access helper for one version: anyone with a role sees it, counts are filtered."""
    if not has_role(user, ANNOTATOR):
        raise PermissionDenied("Dataset versions need the annotator role.")
    return get_object_or_404(DatasetVersion.objects.select_related("created_by"), pk=pk)


def dataset_version_list(user) -> list[DatasetVersion]:
    """Versions newest first, each with ``visible_count`` set for this user."""
    versions = list(DatasetVersion.objects.select_related("created_by").order_by("-created_at"))
    for version in versions:
        version.visible_count = version_visible_count(user, version)
    return versions


def dataset_version_diff(user, old: DatasetVersion, new: DatasetVersion) -> dict:
    """Added, removed and changed examples between two versions, by stable key."""
    fields = ("example_key", "content", "content_hash")
    before = {e["example_key"]: e for e in dataset_entries_visible(user, old).values(*fields)}
    after = {e["example_key"]: e for e in dataset_entries_visible(user, new).values(*fields)}
    changed = []
    for key in sorted(before.keys() & after.keys()):
        if before[key]["content_hash"] == after[key]["content_hash"]:
            continue
        a, b = before[key]["content"], after[key]["content"]
        changed.append(
            {
                "key": key,
                "task": b.get("task", ""),
                "fields": sorted(
                    name for name in a.keys() | b.keys() if a.get(name) != b.get(name)
                ),
            }
        )
    return {
        "added": [
            {"key": key, "task": after[key]["content"].get("task", "")}
            for key in sorted(after.keys() - before.keys())
        ],
        "removed": [
            {"key": key, "task": before[key]["content"].get("task", "")}
            for key in sorted(before.keys() - after.keys())
        ],
        "changed": changed,
    }


def promotable_review_items(limit: int = 100) -> QuerySet[ReviewItem]:
    """Resolved review items that no golden example was made from yet, annotators'
    suggestions first (``suggested`` is true when an answer asked for promotion)."""
    suggested = Annotation.objects.filter(
        item=OuterRef("pk"), promoted=True, undone_at__isnull=True
    )
    return (
        ReviewItem.objects.filter(status=ReviewStatus.RESOLVED)
        .annotate(suggested=Exists(suggested))
        .exclude(
            pk__in=GoldenExample.objects.filter(source_review_item__isnull=False).values(
                "source_review_item"
            )
        )
        .select_related("trace", "queue")
        .order_by("-suggested", "-resolved_at", "-pk")[:limit]
    )


def _size_guidance(size: int) -> dict:
    low, high = SIZE_FIVE_PERCENT_SHIFT
    if size < SIZE_MAJOR_REGRESSIONS:
        level, text = (
            "bad",
            f"Below {SIZE_MAJOR_REGRESSIONS}: too small to catch major regressions.",
        )
    elif size < low:
        level, text = (
            "warn",
            f"Catches major regressions; {low}-{high} examples are needed to see a 5% shift.",
        )
    else:
        level, text = "good", "Large enough to see a shift of about 5%."
    return {"level": level, "text": text, "major": SIZE_MAJOR_REGRESSIONS, "shift": [low, high]}


def dataset_health(user) -> dict:
    """Size against guidance, coverage by task type and failure mode, and run history."""
    examples = golden_examples_visible(user)
    rows = list(
        examples.values("pk", "task", "task_type", "held_out", "failure_tags", "adversarial_kind")
    )
    by_type: dict[str, Counter] = {}
    failure_modes: Counter = Counter()
    for row in rows:
        by_type.setdefault(row["task_type"] or "(none)", Counter())[
            "held_out" if row["held_out"] else "open"
        ] += 1
        for tag in row["failure_tags"] or []:
            failure_modes[tag] += 1
        if row["adversarial_kind"]:
            failure_modes[f"adversarial: {row['adversarial_kind']}"] += 1
    trials = {
        row["entry__example"]: row
        for row in EvalTrial.objects.filter(entry__example__in=examples.values("pk"))
        .values("entry__example")
        .annotate(runs=Count("pk"), passes=Count("pk", filter=Q(passed=True)))
    }
    never_run = [row for row in rows if row["pk"] not in trials]
    always_passing = [
        {**row, "runs": trials[row["pk"]]["runs"]}
        for row in rows
        if row["pk"] in trials and trials[row["pk"]]["passes"] == trials[row["pk"]]["runs"]
    ]
    types = sorted(by_type)
    return {
        "size": len(rows),
        "held_out": sum(1 for row in rows if row["held_out"]),
        "guidance": _size_guidance(len(rows)),
        "task_types": [
            {"task_type": t, "open": by_type[t]["open"], "held_out": by_type[t]["held_out"]}
            for t in types
        ],
        "failure_modes": [
            {"mode": mode, "count": count} for mode, count in sorted(failure_modes.items())
        ],
        "never_run": never_run,
        "always_passing": always_passing,
    }
