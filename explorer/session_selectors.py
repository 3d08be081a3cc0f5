"""Reads for the session pages and API that show what judges said: verdicts of sessions and of
their traces, hidden where the user is labelling blind (reviews/blind.py)."""

from __future__ import annotations

from django.db.models import F, Prefetch, QuerySet

from explorer.selectors import trace_list_rows
from judges.models import Verdict
from reviews.blind import trace_ids_blind_for
from traces.models import Session, Trace
from traces.selectors import traces_visible
from traces.session_selectors import SessionFilter, sessions_visible


def session_verdicts_visible(user, sessions: QuerySet | None = None) -> QuerySet:
    """Session verdicts, less those of sessions where the user is labelling a trace blind."""
    verdicts = Verdict.objects.filter(session__isnull=False)
    if sessions is not None:
        verdicts = verdicts.filter(session__in=sessions)
    blind_sessions = Trace.objects.filter(pk__in=trace_ids_blind_for(user)).values("session_id")
    return verdicts.exclude(session_id__in=blind_sessions)


def session_list(user, params) -> SessionFilter:
    """The filtered session list, each row with its latest verdicts (not in blind views)."""
    rows = sessions_visible(user).prefetch_related(
        Prefetch(
            "verdicts",
            queryset=session_verdicts_visible(user)
            .select_related("rubric_version__rubric")
            .order_by("-created_at"),
            to_attr="verdict_list",
        )
    )
    return SessionFilter(params, queryset=rows)


def session_traces(user, session: Session) -> QuerySet:
    """The session's visible traces in the order they happened, as the trace list shows them."""
    return traces_visible(user, trace_list_rows(user).filter(session=session)).order_by(
        F("started_at").asc(nulls_last=True), "pk"
    )
