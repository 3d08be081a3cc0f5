"""Removing traces past their project's retention time, a bounded batch at a time.

A trace is kept whatever its age while anything people or evaluations rely on points at it:
a golden example made from it, a review item (open or settled: it carries people's labels),
an eval run's trial, or a judge run still judging it. Each batch is its own transaction, so a
worker that dies mid-way leaves every trace either whole or gone, and the next run goes on.
"""

from datetime import timedelta

from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from traces.models import Project, Span, Trace

RETENTION_BATCH = 200

# Reverse relations of Trace that keep it, with the condition on the pointing rows.
TRACE_KEEPERS: tuple[tuple[str, Q], ...] = (
    ("golden_examples", Q()),
    ("review_items", Q()),
    ("evaltrial", Q()),
    ("judgments", Q(run__status__in=("pending", "running"))),
)


def _kept_by(relation: str, condition: Q) -> Exists:
    rel = Trace._meta.get_field(relation)
    pointing = rel.related_model._base_manager.filter(condition, **{rel.field.name: OuterRef("pk")})
    return Exists(pointing)


def traces_expirable(project: Project, cutoff) -> QuerySet:
    """The project's traces received before `cutoff` that nothing keeps."""
    queryset = Trace.objects.filter(project=project, created_at__lt=cutoff)
    for relation, condition in TRACE_KEEPERS:
        queryset = queryset.exclude(_kept_by(relation, condition))
    return queryset


def _traces_delete(ids: list[int]) -> None:
    # Rows pointing at spans first (red flags), then spans in one statement: Django's cascade
    # would load every span of every trace into memory to find them.
    for rel in Span._meta.related_objects:
        rel.related_model._base_manager.filter(**{f"{rel.field.name}__trace_id__in": ids}).delete()
    table = connection.ops.quote_name(Span._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {table} WHERE trace_id IN ({', '.join(['%s'] * len(ids))})",  # noqa: S608 - names from _meta, values bound
            ids,
        )
    Trace.objects.filter(pk__in=ids).delete()


def project_traces_expire(project: Project, limit: int, now=None) -> int:
    """Remove up to `limit` of the project's expired traces, oldest first; returns how many."""
    if not project.retention_days or limit <= 0:
        return 0
    cutoff = (now or timezone.now()) - timedelta(days=project.retention_days)
    with transaction.atomic():
        # Locked so a review item or trial created meanwhile waits, then fails its foreign key
        # instead of being deleted with the trace; rows another batch holds are skipped.
        candidates = (
            traces_expirable(project, cutoff)
            .order_by("created_at", "pk")
            .select_for_update(skip_locked=True, of=("self",))
        )
        ids = list(candidates.values_list("pk", flat=True)[:limit])
        if ids:
            _traces_delete(ids)
    return len(ids)


def traces_expire(limit: int = RETENTION_BATCH, now=None) -> int:
    """One bounded pass over every project with a retention time; returns traces removed."""
    removed = 0
    for project in Project.objects.filter(retention_days__isnull=False).order_by("pk"):
        removed += project_traces_expire(project, limit - removed, now)
        if removed >= limit:
            break
    return removed
