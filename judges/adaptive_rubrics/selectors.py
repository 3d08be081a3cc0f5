"""Reads for the task-adaptive rubric pages."""

from django.db.models import Count, Q

from judges.adaptive_rubrics.criteria_stats import rubric_criteria_stats
from judges.adaptive_rubrics.models import TaskTypeAssignment, TaskTypeRule, TaskTypeSource
from judges.models import Rubric
from traces.models import Trace

CORRECTIONS_SHOWN = 50


def task_type_summary() -> list[dict]:
    """Each task type with its trace count, how many were corrected, and its generated rubric."""
    rows = (
        Trace.objects.exclude(task_type="")
        .values("task_type")
        .annotate(
            traces=Count("pk"),
            corrected=Count("pk", filter=Q(task_type_assignment__source=TaskTypeSource.PERSON)),
        )
        .order_by("-traces", "task_type")
    )
    rubrics = {r.task_type: r for r in Rubric.objects.exclude(task_type="").order_by("pk")}
    return [dict(row, rubric=rubrics.get(row["task_type"])) for row in rows]


def task_type_rules() -> list[TaskTypeRule]:
    return list(TaskTypeRule.objects.select_related("created_by"))


def task_type_corrections(limit: int = CORRECTIONS_SHOWN) -> list[TaskTypeAssignment]:
    """The latest corrections people made, newest first."""
    return list(
        TaskTypeAssignment.objects.filter(source=TaskTypeSource.PERSON)
        .select_related("trace", "corrected_by")
        .order_by("-updated_at")[:limit]
    )


def criteria_page_rows(version) -> list:
    """The version's criteria with their statistics and flags."""
    return rubric_criteria_stats(version)
