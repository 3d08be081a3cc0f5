"""Reads of sessions' own data: sessions a user may see, and a session's conversation.

A session is visible when one of its traces is (traces_visible: held-out traces are for
curators only), and everything shown of it is computed over those traces alone.
"""

from __future__ import annotations

import django_filters
from django.db.models import Count, F, Max, Min, QuerySet, Sum
from django.db.models.functions import Coalesce, Substr
from django.shortcuts import get_object_or_404
from django.utils.safestring import SafeString

from traces.conversation_html import conversation_html
from traces.models import Project, Session, Span, SpanKind, SpanStatus, Trace
from traces.selectors import sees_held_out
from traces.session_totals import FIRST_TASK_CHARS

# The session list's order; the indexes session_list_latest and session_project_latest serve
# it (nulls last), and the id gives a page cursor (core/keyset.py) one place in it.
SESSION_ORDER = ("-last_trace_at", "-id")


def sessions_visible(user) -> QuerySet:
    """Sessions with a trace the user may see, latest activity first, from their stored totals.

    No trace row is read: a session of held-out traces alone is left out by its counts, and
    the totals of one that mixes both are recounted for the rows shown (`sessions_as_seen_by`).
    The order is by the stored last time, which may be a held-out trace's.
    """
    sessions = Session.objects.select_related("project").filter(trace_count__gt=0)
    if not sees_held_out(user):
        sessions = sessions.filter(trace_count__gt=F("held_out_trace_count"))
    return sessions.order_by(F("last_trace_at").desc(nulls_last=True), "-pk")


def sessions_as_seen_by(user, sessions: list[Session]) -> list[Session]:
    """The listed sessions with the totals this user may see: for one who may not see held-out
    traces, sessions holding any are totalled again over the others, in two queries.

    The instances are for display: their totals are replaced in memory, never saved."""
    mixed = {session.pk: session for session in sessions if session.held_out_trace_count}
    if not mixed or sees_held_out(user):
        return sessions
    visible = Trace.objects.filter(session_id__in=list(mixed), held_out=False).order_by()
    totals = visible.values("session_id").annotate(
        trace_count=Count("pk"),
        error_count=Sum("error_count"),
        input_tokens=Sum("input_tokens"),
        output_tokens=Sum("output_tokens"),
        cost_usd=Sum("cost_usd"),
        first_started_at=Min("started_at"),
        last_trace_at=Max(Coalesce("ended_at", "started_at")),
    )
    for row in totals:
        session = mixed[row.pop("session_id")]
        for name, value in row.items():
            setattr(session, name, value)
        session.held_out_trace_count = 0
    firsts = visible.order_by("session_id", F("started_at").asc(nulls_last=True), "pk")
    seen: set[int] = set()
    for session_id, task in firsts.values_list("session_id", Substr("task", 1, FIRST_TASK_CHARS)):
        if session_id not in seen:
            seen.add(session_id)
            mixed[session_id].first_task = task
    return sessions


class SessionFilter(django_filters.FilterSet):
    project = django_filters.ModelChoiceFilter(
        queryset=Project.objects.order_by("name"), to_field_name="slug", empty_label="All"
    )
    q = django_filters.CharFilter(
        field_name="external_id", lookup_expr="icontains", label="Session id"
    )

    class Meta:
        model = Session
        fields: list[str] = []


def session_get(user, session_id: int) -> Session:
    """A session with at least one trace the user may see, with its totals; else 404."""
    session = get_object_or_404(sessions_visible(user), pk=session_id)
    return sessions_as_seen_by(user, [session])[0]


def _tool_turns(span: Span) -> list[dict]:
    call_id = span.tool_call_id or span.span_id
    failed = span.status == SpanStatus.ERROR
    result = span.output if span.output is not None else span.error_message
    return [
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": call_id,
                    "name": span.tool_name or span.name,
                    "input": span.input if span.input is not None else {},
                }
            ],
        },
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": call_id,
                    "content": result,
                    "is_error": failed,
                }
            ],
        },
    ]


def session_conversations(traces: list[Trace]) -> dict[int, str]:
    """Each trace as one exchange of the conversation, in the trace page's rendering: the
    user's request, the agent's tool calls and their results, its final answer."""
    tool_spans: dict[int, list[Span]] = {trace.pk: [] for trace in traces}
    spans = (
        Span.objects.filter(trace_id__in=list(tool_spans), kind=SpanKind.TOOL)
        .only(
            "trace_id",
            "span_id",
            "name",
            "tool_name",
            "tool_call_id",
            "input",
            "output",
            "status",
            "error_message",
        )
        .order_by("trace_id", "position", "pk")
    )
    for span in spans:
        tool_spans[span.trace_id].append(span)
    rendered = {}
    for trace in traces:
        messages: list[dict] = []
        if trace.task:
            messages.append({"role": "user", "content": trace.task})
        for span in tool_spans[trace.pk]:
            messages.extend(_tool_turns(span))
        if trace.final_answer:
            messages.append({"role": "assistant", "content": trace.final_answer})
        # conversation_html escapes every value it is given, as on the trace page.
        rendered[trace.pk] = SafeString(conversation_html("Exchange", messages))
    return rendered
