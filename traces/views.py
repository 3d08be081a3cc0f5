from django.shortcuts import get_object_or_404, render

from traces.models import Trace


def trace_list(request):
    traces = Trace.objects.select_related("project").order_by("-created_at")[:50]
    return render(request, "traces/trace_list.html", {"traces": traces})


def trace_detail(request, trace_id: int):
    trace = get_object_or_404(Trace.objects.select_related("project"), pk=trace_id)
    spans = trace.spans.order_by("position")
    return render(request, "traces/trace_detail.html", {"trace": trace, "spans": spans})
