"""Deleting traces from the browser: one from its page, or a trace-list filter's worth, each
after a page that says what goes, what stays and why (traces.deletion)."""

from django.contrib import messages
from django.http import QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse

from accounts.roles import CURATOR, require_role
from core.errors import ApplicationError
from explorer import selectors as explorer_selectors
from explorer.views import PAGE_POSITION_PARAMS
from traces import selectors
from traces.deletion import (
    MAX_TRACES_DELETED_AT_ONCE,
    traces_counted,
    traces_delete_requested,
    traces_deletion_preview,
)
from traces.models import Trace

# The traces named on the confirmation page; the rest are counted.
TRACES_SHOWN = 20


@require_role(CURATOR)
def trace_delete(request, trace_id: int):
    trace = selectors.trace_get(request.user, trace_id)
    traces = Trace.objects.filter(pk=trace.pk)
    if request.method != "POST":
        return _confirm(request, traces, cancel=reverse("explorer:detail", args=[trace.pk]))
    try:
        traces_delete_requested(traces=traces, user=request.user, all_or_nothing=True)
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return redirect("explorer:detail", trace_id=trace.pk)
    messages.success(request, f"Deleted trace {trace.external_id}.")
    return redirect("explorer:list")


@require_role(CURATOR)
def traces_delete(request):
    """Every trace of a trace-list filter, less the kept ones; the form carries the count the
    curator was shown, and a filter that matches another count by then is shown again."""
    source = request.POST.get("query", "") if request.method == "POST" else request.GET.urlencode()
    params = QueryDict(source.lstrip("?"), mutable=True)
    for name in (*PAGE_POSITION_PARAMS, "sort", "per_page"):
        params.pop(name, None)
    query = params.urlencode()
    back = f"{reverse('explorer:list')}{'?' if query else ''}{query}"
    trace_filter = explorer_selectors.trace_list(request.user, params)
    if not trace_filter.is_valid():
        messages.error(request, f"The trace filter is not valid: {trace_filter.errors.as_text()}")
        return redirect(back)
    traces = trace_filter.qs
    if request.method != "POST":
        return _confirm(request, traces, cancel=back, query=query)
    shown, now = request.POST.get("expected", ""), traces_counted(traces)
    if shown != str(now):
        notice = f"The filter matches {now} traces now, not {shown}: check them again."
        return _confirm(request, traces, cancel=back, query=query, notice=notice)
    try:
        report = traces_delete_requested(traces=traces, user=request.user, all_or_nothing=False)
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return redirect(back)
    kept = ""
    if report.kept_ids:
        reasons = "; ".join(f"by {label}: {count}" for label, count in report.kept_by.items())
        kept = f" {len(report.kept_ids)} kept ({reasons})."
    plural = "s" if report.deleted != 1 else ""
    messages.success(request, f"Deleted {report.deleted} trace{plural}.{kept}")
    return redirect(back)


def _confirm(request, traces, *, cancel: str, query: str | None = None, notice: str = ""):
    preview = traces_deletion_preview(traces)
    return render(
        request,
        "explorer/traces_delete.html",
        {
            "preview": preview,
            "traces": traces.select_related("project")[:TRACES_SHOWN],
            "unshown": max(preview.count - TRACES_SHOWN, 0),
            "query": query,
            "cancel": cancel,
            "notice": notice,
            "max_at_once": MAX_TRACES_DELETED_AT_ONCE,
        },
        status=409 if notice else 200,
    )
