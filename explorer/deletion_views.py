"""Deleting traces from the browser: one from its page, or a trace-list filter's worth, each
after a page that says what goes, what stays and why (traces.deletion); past the cap of one
request, in the background, with a page that follows its progress (traces.deletion_jobs)."""

from django.contrib import messages
from django.db import transaction
from django.db.models import Count, Max
from django.http import QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.roles import CURATOR, require_role
from core.errors import ApplicationError
from explorer import selectors as explorer_selectors
from explorer.views import PAGE_POSITION_PARAMS, trace_list_url
from traces import selectors
from traces.deletion import (
    MAX_TRACES_DELETED_AT_ONCE,
    traces_counted,
    traces_delete_requested,
    traces_deletion_preview,
)
from traces.deletion_jobs import CHUNK as DELETION_CHUNK
from traces.deletion_jobs import trace_deletion_start, trace_deletion_stop
from traces.models import Trace, TraceDeletion

# The traces named on the confirmation page; the rest are counted.
TRACES_SHOWN = 20
# Background deletions listed, newest first.
DELETIONS_LISTED = 100


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


def _list_filter(request):
    """The trace-list filter a deletion page was opened or sent with: its query string (page
    position and sort dropped), the list it came from, and the filter."""
    source = request.POST.get("query", "") if request.method == "POST" else request.GET.urlencode()
    params = QueryDict(source.lstrip("?"), mutable=True)
    for name in (*PAGE_POSITION_PARAMS, "sort", "per_page"):
        params.pop(name, None)
    query = params.urlencode()
    return params, trace_list_url(query), explorer_selectors.trace_list(request.user, params)


@require_role(CURATOR)
def traces_delete(request):
    """Every trace of a trace-list filter, less the kept ones; the form carries the count the
    curator was shown, and a filter that matches another count by then is shown again."""
    params, back, trace_filter = _list_filter(request)
    if not trace_filter.is_valid():
        messages.error(request, f"The trace filter is not valid: {trace_filter.errors.as_text()}")
        return redirect(back)
    traces, query = trace_filter.qs, params.urlencode()
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


@require_POST
@require_role(CURATOR)
def traces_delete_background(request):
    """More traces than one request deletes: the filter's traces up to the newest the curator
    was shown go in the background, if the filter still matches the count shown."""
    params, back, trace_filter = _list_filter(request)
    if not trace_filter.is_valid():
        messages.error(request, f"The trace filter is not valid: {trace_filter.errors.as_text()}")
        return redirect(back)
    traces, query = trace_filter.qs, params.urlencode()
    up_to = request.POST.get("up_to", "")
    shown = request.POST.get("expected", "")
    if not up_to.isdigit():
        notice = "The form did not say up to which trace to delete: check them again."
        return _confirm(request, traces, cancel=back, query=query, notice=notice)
    now = traces.filter(pk__lte=int(up_to)).order_by().count()
    if shown != str(now):
        notice = f"The filter matches {now} of those traces now, not {shown}: check them again."
        return _confirm(request, traces, cancel=back, query=query, notice=notice)
    try:
        with transaction.atomic():
            deletion = trace_deletion_start(
                user=request.user, traces=traces, query=params, up_to=int(up_to)
            )
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return redirect(back)
    return redirect("explorer:deletion_detail", deletion_id=deletion.pk)


@require_role(CURATOR)
def deletion_list(request):
    deletions = TraceDeletion.objects.select_related("created_by")[:DELETIONS_LISTED]
    return render(
        request,
        "explorer/deletion_list.html",
        {"deletions": deletions, "max_at_once": MAX_TRACES_DELETED_AT_ONCE},
    )


@require_role(CURATOR)
def deletion_detail(request, deletion_id: int):
    return render(request, "explorer/deletion_detail.html", _deletion_context(deletion_id))


@require_role(CURATOR)
def deletion_progress(request, deletion_id: int):
    return render(request, "explorer/_deletion_progress.html", _deletion_context(deletion_id))


@require_POST
@require_role(CURATOR)
def deletion_stop(request, deletion_id: int):
    deletion = get_object_or_404(TraceDeletion, pk=deletion_id)
    try:
        trace_deletion_stop(deletion=deletion, user=request.user)
    except ApplicationError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "Stopped; the traces deleted so far stay deleted.")
    return redirect("explorer:deletion_detail", deletion_id=deletion.pk)


def _deletion_context(deletion_id: int) -> dict:
    deletion = get_object_or_404(TraceDeletion.objects.select_related("created_by"), pk=deletion_id)
    return {
        "deletion": deletion,
        "list_url": trace_list_url(deletion.query),
    }


def _confirm(request, traces, *, cancel: str, query: str | None = None, notice: str = ""):
    preview = traces_deletion_preview(traces)
    # Past the cap, the confirmation offers the background deletion of every matching trace
    # up to the newest one now.
    background = {}
    if preview.too_many and query is not None:
        background = traces.order_by().aggregate(count=Count("pk"), up_to=Max("pk"))
    return render(
        request,
        "explorer/traces_delete.html",
        {
            "preview": preview,
            "traces": traces.select_related("project")[:TRACES_SHOWN],
            "unshown": max(background.get("count", preview.count) - TRACES_SHOWN, 0),
            "chunk": DELETION_CHUNK,
            "query": query,
            "cancel": cancel,
            "notice": notice,
            "max_at_once": MAX_TRACES_DELETED_AT_ONCE,
            "background": background,
        },
        status=409 if notice else 200,
    )
