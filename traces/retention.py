"""Removing traces past their project's retention time, a bounded batch at a time.

A trace is kept whatever its age while anything people or evaluations rely on points at it:
a golden example made from it, a review item (open or settled: it carries people's labels),
an eval run's trial, a judge run still judging it, or any row of a model that does not say
the trace owns it (TRACE_OWNS). A trace of a session (a conversation) stays while the session
has a recent trace, a review item, or a judge run still judging it. Each batch is its own
transaction, so a worker that dies mid-way leaves every trace either whole or gone, and the next
run goes on. On PostgreSQL whole UTC days expire, and a day past every project's retention time
drops its spans partition instead (traces.retention_days); these batches take the rest.
"""

from datetime import UTC, timedelta

from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from traces.models import Project, Session, Span, Trace
from traces.span_partitions import spans_partitioned

RETENTION_BATCH = 200

# What a trace owns and loses with it. Any other row pointing at a trace keeps the trace, so a
# relation added later (a session, say) keeps traces until it is listed here on purpose.
TRACE_OWNS = frozenset(
    {
        "spans",
        "feedback",
        "search_document",
        "attribute_values",
        "judgments",
        "verdicts",
        "red_flags",
        "red_flag_check",
        "task_type_assignment",
    }
)
# A judgment is owned, except while its judge run is still at work.
JUDGMENT_KEEPS = Q(run__status__in=("pending", "running"))


def trace_keepers() -> list[tuple[str, Q]]:
    """(reverse relation of Trace, condition on the pointing rows) pairs that keep a trace."""
    keepers = [(rel.name, Q()) for rel in Trace._meta.related_objects if rel.name not in TRACE_OWNS]
    return [*keepers, ("judgments", JUDGMENT_KEEPS)]


def _kept_by(relation: str, condition: Q) -> Exists:
    rel = Trace._meta.get_field(relation)
    pointing = rel.related_model._base_manager.filter(condition, **{rel.field.name: OuterRef("pk")})
    return Exists(pointing)


# A session is a conversation: its traces stay while any of it is recent, reviewed, or being
# judged. The session row itself stays (its traces' foreign key is set null).
SESSION_OWNS = frozenset({"traces", "verdicts", "judgments"})


def _session_kept() -> list[Exists]:
    kept = []
    for rel in Session._meta.related_objects:
        if rel.name in SESSION_OWNS and rel.name != "judgments":
            continue
        condition = JUDGMENT_KEEPS if rel.name == "judgments" else Q()
        rows = rel.related_model._base_manager.filter(
            condition, **{rel.field.name: OuterRef("session")}
        )
        kept.append(Exists(rows))
    return kept


def traces_expirable(project: Project, cutoff) -> QuerySet:
    """The project's traces received before `cutoff` that nothing keeps."""
    queryset = Trace.objects.filter(project=project, created_at__lt=cutoff)
    for relation, condition in trace_keepers():
        queryset = queryset.exclude(_kept_by(relation, condition))
    recent_in_session = Trace.objects.filter(session=OuterRef("session"), created_at__gte=cutoff)
    queryset = queryset.exclude(Exists(recent_in_session))
    for kept in _session_kept():
        queryset = queryset.exclude(kept)
    return queryset


def traces_delete(ids: list[int], span_rows: bool = True) -> None:
    """Delete these traces and what they own; their span rows too unless `span_rows` is false
    (the caller drops their partition). A row of any other relation (TRACE_OWNS says why there
    is none) fails the transaction on its foreign key, so nothing that keeps a trace is lost."""
    # Rows pointing at spans first (red flags), then spans in one statement: Django's cascade
    # would load every span of every trace into memory to find them.
    for rel in Span._meta.related_objects:
        rel.related_model._base_manager.filter(**{f"{rel.field.name}__trace_id__in": ids}).delete()
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        if span_rows:
            cursor.execute(
                f"DELETE FROM {quote(Span._meta.db_table)} "  # noqa: S608 - names from _meta, values bound
                f"WHERE trace_id IN ({', '.join(['%s'] * len(ids))})",
                ids,
            )
        for name in sorted(TRACE_OWNS - {"spans"}):
            rel = Trace._meta.get_field(name)
            rel.related_model._base_manager.filter(**{f"{rel.field.name}__in": ids}).delete()
        # By statement, not Model.delete(): its cascade would search every spans partition.
        cursor.execute(
            f"DELETE FROM {quote(Trace._meta.db_table)} "  # noqa: S608 - names from _meta, values bound
            f"WHERE id IN ({', '.join(['%s'] * len(ids))})",
            ids,
        )


def retention_cutoff(project: Project, now=None):
    """When the project's traces received earlier expire. With spans partitioned by day
    (PostgreSQL), whole UTC days expire, so a day's partition is dropped rather than emptied."""
    cutoff = (now or timezone.now()) - timedelta(days=project.retention_days)
    if spans_partitioned():
        cutoff = cutoff.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return cutoff


def project_traces_expire(project: Project, limit: int, now=None) -> int:
    """Remove up to `limit` of the project's expired traces, oldest first; returns how many."""
    if not project.retention_days or limit <= 0:
        return 0
    cutoff = retention_cutoff(project, now)
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
            traces_delete(ids)
    return len(ids)


def traces_expire(limit: int = RETENTION_BATCH, now=None) -> int:
    """One bounded pass over every project with a retention time; returns traces removed."""
    removed = 0
    for project in Project.objects.filter(retention_days__isnull=False).order_by("pk"):
        removed += project_traces_expire(project, limit - removed, now)
        if removed >= limit:
            break
    return removed
