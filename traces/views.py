"""Pages of a trace's own data: a span's body and raw values, JSONL uploads, projects.

The trace list and trace page, composed from every stage, are in explorer/views.py.
"""

import json

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_POST

from accounts.roles import ANNOTATOR, CURATOR, require_role
from core.errors import ApplicationError
from traces import selectors
from traces.forms import ProjectForm
from traces.ingest.jsonl import traces_import_jsonl
from traces.models import Project
from traces.projects import project_resolve
from traces.span_html import span_full_html


@require_role(ANNOTATOR)
def span_body(request, trace_id: int, span_pk: int):
    """The whole of one span (conversation view, values, attributes) for its place in the tree."""
    trace = selectors.trace_get(request.user, trace_id)
    span = get_object_or_404(trace.spans.all(), pk=span_pk)
    return HttpResponse(f'<div class="span-full-body">{span_full_html(span)}</div>')


RAW_FIELDS = ("input", "output", "attributes")


@require_role(ANNOTATOR)
def span_value_raw(request, trace_id: int, span_pk: int, field: str):
    """One span value whole, as a JSON download (never shown inline): the page cuts long ones."""
    trace = selectors.trace_get(request.user, trace_id)
    if field not in RAW_FIELDS:
        raise Http404("Spans have an input, an output and attributes.")
    value = get_object_or_404(trace.spans.only(field, "span_id"), pk=span_pk)
    body = json.dumps(getattr(value, field), ensure_ascii=False, default=str)
    response = HttpResponse(body.encode(), content_type="application/json")
    response["Content-Disposition"] = content_disposition_header(
        True, f"span-{value.span_id}-{field}.json"
    )
    return response


@require_POST
@require_role(ANNOTATOR)
def trace_upload(request):
    """A JSONL file from the list page; bad lines are listed, the others stored."""
    upload = request.FILES.get("file")
    if upload is None:
        messages.error(request, "Choose a JSONL file to upload (one trace per line).")
        return redirect("explorer:list")
    try:
        project = project_resolve(named=request.POST.get("project"))
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return redirect("explorer:list")
    report = traces_import_jsonl(project, upload)
    messages.success(request, f"{report.created} traces stored from {upload.name}.")
    for error in report.errors[:20]:
        messages.error(request, f"Line {error.line}: {error.message}")
    if len(report.errors) > 20:
        messages.error(request, f"…and {len(report.errors) - 20} more failed lines.")
    return redirect("explorer:list")


@require_role(CURATOR)
def project_list(request):
    """Projects with their trace counts; curators create and rename them here."""
    editing = None
    if request.GET.get("edit"):
        editing = get_object_or_404(Project, pk=request.GET["edit"])
    if request.method == "POST":
        editing = (
            get_object_or_404(Project, pk=request.POST["project"])
            if request.POST.get("project")
            else None
        )
        form = ProjectForm(request.POST, instance=editing)
        if form.is_valid():
            project = form.save()
            messages.success(request, f"Saved project {project.name} ({project.slug}).")
            return redirect("traces:projects")
    else:
        form = ProjectForm(instance=editing)
    return render(
        request,
        "traces/project_list.html",
        {"projects": selectors.projects_with_counts(), "form": form, "editing": editing},
    )
