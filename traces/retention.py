"""Removing traces past their project's retention time, a bounded batch at a time.

A trace is kept whatever its age while anything people or evaluations rely on points at it:
a golden example made from it, a review item (open or settled: it carries people's labels),
an eval run's trial, a judge run still judging it. Each app to the right declares what its
rows mean for retention when it loads; traces never reads those models itself. A trace of a
session (a conversation) stays while the session has a recent trace, a review item, or a judge
run still judging it. Each batch is its own transaction, so a worker that dies mid-way leaves
every trace either whole or gone, and the next run goes on. On PostgreSQL whole UTC days expire,
and a day past every project's retention time drops its spans partition instead
(traces.retention_days); these batches take the rest.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, timedelta

from django.core.exceptions import ImproperlyConfigured
from django.db import connection, transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.db.models.deletion import Collector
from django.utils import timezone

from traces.models import Project, Session, Span, Trace
from traces.partition_sql import spans_partitioned
from traces.session_totals import sessions_totals_recount
from traces.sql import spans_of_traces_delete

RETENTION_BATCH = 200


@dataclass(frozen=True)
class Keeper:
    """Rows of an app's own model that keep what they point at through its field `via`;
    `label` says why, to a person whose deletion of a trace it refuses."""

    relation: str
    rows: Callable[[], QuerySet]
    via: str
    label: str


# Apps to the right say on load what their rows pointing at a trace, a session or a span mean
# (judges/retention.py, reviews/apps.py, golden/apps.py): owned rows go with it, keepers keep
# it. A relation nobody declared stops retention (undeclared_relations) rather than lose rows.
TRACE_OWNS = {"spans", "feedback", "search_document", "attribute_values", "tags"}
SESSION_OWNS = {"traces"}
_TRACE_KEEPERS: dict[str, Keeper] = {}
_SESSION_KEEPERS: dict[str, Keeper] = {}
# Rows pointing at spans, removed before the spans (span relation -> rows of given traces).
_SPAN_DEPENDENTS: dict[str, Callable[[list[int]], QuerySet]] = {}


def trace_relation_owned(relation: str) -> None:
    TRACE_OWNS.add(relation)


def trace_keeper_add(relation: str, rows: Callable[[], QuerySet], via: str, label: str) -> None:
    _TRACE_KEEPERS[relation] = Keeper(relation, rows, via, label)


def session_relation_owned(relation: str) -> None:
    SESSION_OWNS.add(relation)


def session_keeper_add(relation: str, rows: Callable[[], QuerySet], via: str, label: str) -> None:
    _SESSION_KEEPERS[relation] = Keeper(relation, rows, via, label)


def span_dependents_add(relation: str, rows_of_traces: Callable[[list[int]], QuerySet]) -> None:
    _SPAN_DEPENDENTS[relation] = rows_of_traces


def trace_keepers() -> list[tuple[str, Keeper]]:
    """(reverse relation of Trace, its keeper) pairs: rows that keep a trace."""
    return list(_TRACE_KEEPERS.items())


def undeclared_relations() -> list[str]:
    """Relations to a trace, session or span that no app said it owns or keeps them by."""
    declared = {
        Trace: TRACE_OWNS | set(_TRACE_KEEPERS),
        Session: SESSION_OWNS | set(_SESSION_KEEPERS),
        Span: set(_SPAN_DEPENDENTS),
    }
    return [
        f"{model.__name__}.{rel.name}"
        for model, names in declared.items()
        for rel in model._meta.related_objects
        if rel.name not in names
    ]


def _keepers_known() -> None:
    if undeclared := undeclared_relations():
        raise ImproperlyConfigured(f"Retention does not know what keeps {', '.join(undeclared)}.")


def _keeping(keeper: Keeper, of: str) -> Exists:
    return Exists(keeper.rows().filter(**{keeper.via: OuterRef(of)}))


def _keepers_with_their_reference() -> list[tuple[Keeper, str]]:
    """Every keeper with the trace field it points at: the trace, or the trace's session."""
    return [(keeper, "pk") for keeper in _TRACE_KEEPERS.values()] + [
        (keeper, "session") for keeper in _SESSION_KEEPERS.values()
    ]


def traces_unkept(queryset: QuerySet) -> QuerySet:
    """These traces, less the ones something keeps (theirs or their session's rows)."""
    _keepers_known()
    for keeper, of in _keepers_with_their_reference():
        queryset = queryset.exclude(_keeping(keeper, of))
    return queryset


def traces_kept_by(ids: list[int]) -> dict[int, list[str]]:
    """The traces among these that something keeps, each with its keepers' labels."""
    _keepers_known()
    kept: dict[int, list[str]] = {}
    for keeper, of in _keepers_with_their_reference():
        held = Trace.objects.filter(pk__in=ids).filter(_keeping(keeper, of))
        for pk in held.values_list("pk", flat=True):
            kept.setdefault(pk, []).append(keeper.label)
    return kept


def traces_expirable(project: Project, cutoff) -> QuerySet:
    """The project's traces received before `cutoff` that nothing keeps."""
    queryset = traces_unkept(Trace.objects.filter(project=project, created_at__lt=cutoff))
    # A session is a conversation: its traces stay while any of it is recent, reviewed, or
    # being judged. The session row itself stays (its traces' foreign key is set null).
    recent_in_session = Trace.objects.filter(session=OuterRef("session"), created_at__gte=cutoff)
    return queryset.exclude(Exists(recent_in_session))


def traces_delete(ids: list[int], span_rows: bool = True) -> None:
    """Delete these traces and what they own; their span rows too unless `span_rows` is false
    (the caller dropped their partition)."""
    sessions = list(
        Trace.objects.filter(pk__in=ids, session__isnull=False).values_list("session_id", flat=True)
    )
    # Rows pointing at spans first (red flags), then spans in one statement: Django's cascade
    # would load every span of every trace into memory to find them.
    for rows_of_traces in _SPAN_DEPENDENTS.values():
        rows_of_traces(ids).delete()
    if span_rows:
        spans_of_traces_delete(ids)
    collector = _CollectorPastSpans(using=connection.alias)
    collector.collect(Trace.objects.filter(pk__in=ids))
    collector.delete()
    sessions_totals_recount(sessions)


class _CollectorPastSpans(Collector):
    """Django's cascade, minus the spans: they are gone already (or go with their partition),
    and the cascade would read every one of them to delete them by rows."""

    def related_objects(self, related_model, related_fields, objs):
        if related_model is Span:
            return Span.objects.none()
        return super().related_objects(related_model, related_fields, objs)


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
