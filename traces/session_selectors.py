"""Reads of sessions' own data: sessions a user may see, and a session's conversation.

A session is visible when one of its traces is (traces_visible: held-out traces are for
curators only), and everything shown of it is computed over those traces alone.
"""

from __future__ import annotations

import django_filters
from django.db.models import Count, F, Max, Min, OuterRef, QuerySet, Subquery, Sum
from django.shortcuts import get_object_or_404
from django.utils.safestring import SafeString

from traces.conversation_html import conversation_html
from traces.models import Project, Session, Span, SpanKind, SpanStatus, Trace
from traces.selectors import traces_visible

TASK_EXCERPT_CHARS = 200


def sessions_visible(user) -> QuerySet:
    """Sessions with their visible traces counted, timed and summed, newest activity first."""
    first_task = traces_visible(user, Trace.objects.filter(session=OuterRef("pk"))).order_by(
        F("started_at").asc(nulls_last=True), "pk"
    )
    return (
        traces_visible(user, Session.objects.select_related("project"), via="traces")
        .annotate(
            trace_total=Count("traces"),
            first_started_at=Min("traces__started_at"),
            last_started_at=Max("traces__started_at"),
            error_total=Sum("traces__error_count"),
            cost_total=Sum("traces__cost_usd"),
            first_task=Subquery(first_task.values("task")[:1]),
        )
        .filter(trace_total__gt=0)
        .order_by(F("last_started_at").desc(nulls_last=True), "-pk")
    )


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
    return get_object_or_404(sessions_visible(user), pk=session_id)


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
