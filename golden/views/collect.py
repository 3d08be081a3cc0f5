"""Adding traces to the golden dataset from the trace page and the trace list, as drafts."""

from django.contrib import messages
from django.http import QueryDict
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.roles import CURATOR, require_role
from core.errors import ApplicationError
from golden.collect import golden_drafts_from_traces
from golden.models import GoldenExample
from traces.filters import TraceFilter
from traces.models import Trace
from traces.selectors import trace_get, traces_visible


@require_POST
@require_role(CURATOR)
def collect_trace(request, trace_id: int):
    """Draft an example from one trace and open it for the curator to check and save."""
    trace = trace_get(request.user, trace_id)
    report = golden_drafts_from_traces(traces=Trace.objects.filter(pk=trace.pk), user=request.user)
    if report.skipped_trace_ids:
        existing = GoldenExample.objects.filter(source_trace=trace).order_by("pk").first()
        messages.info(request, f"This trace already backs golden example #{existing.pk}.")
        return redirect("golden:example_detail", pk=existing.pk)
    draft = report.created[0]
    messages.success(
        request,
        f"Drafted example #{draft.pk} from this trace; check the reference trajectory and save "
        "to confirm it.",
    )
    return redirect("golden:example_edit", pk=draft.pk)


@require_POST
@require_role(CURATOR)
def collect_filter(request):
    """Draft an example from every trace of a trace-list filter (its query string)."""
    query = request.POST.get("query", "").lstrip("?")
    trace_filter = TraceFilter(
        QueryDict(query), queryset=traces_visible(request.user, Trace.objects.all())
    )
    back = f"{reverse('explorer:list')}?{query}"
    if not trace_filter.is_valid():
        messages.error(request, f"The trace filter is not valid: {trace_filter.errors.as_text()}")
        return redirect(back)
    try:
        report = golden_drafts_from_traces(traces=trace_filter.qs, user=request.user)
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return redirect(back)
    skipped = len(report.skipped_trace_ids)
    note = f"; {skipped} trace{'s' if skipped != 1 else ''} already in golden" if skipped else ""
    messages.success(request, f"Added {len(report.created)} draft examples{note}.")
    return redirect(f"{reverse('golden:example_list')}?draft=yes")
