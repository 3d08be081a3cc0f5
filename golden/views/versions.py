"""Dataset version pages: list and snapshot, detail, JSONL export and import, diff."""

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_POST

from accounts.roles import ANNOTATOR, CURATOR, require_role
from core.errors import ApplicationError
from golden.forms import DatasetImportForm, DatasetVersionForm
from golden.jsonl import EXPORT_PARTS, ImportInvalid, dataset_import_jsonl
from golden.jsonl import dataset_version_export_lines as export_lines
from golden.selectors import (
    dataset_entries_visible,
    dataset_version_diff,
    dataset_version_get_for_user,
    dataset_version_list,
    version_visible_count,
)
from golden.services import dataset_version_create
from traces.selectors import sees_held_out


@require_role(ANNOTATOR)
def version_list(request):
    return render(
        request,
        "golden/version_list.html",
        {"versions": dataset_version_list(request.user), "form": DatasetVersionForm()},
    )


@require_role(CURATOR)
@require_POST
def version_create(request):
    form = DatasetVersionForm(request.POST)
    if form.is_valid():
        try:
            version = dataset_version_create(user=request.user, **form.cleaned_data)
        except ApplicationError as exc:
            messages.error(request, exc.message)
            return redirect("golden:version_list")
        messages.success(request, f"Version {version.name} saved ({version.example_count}).")
        return redirect("golden:version_detail", pk=version.pk)
    messages.error(request, "Give the version a name.")
    return redirect("golden:version_list")


@require_role(ANNOTATOR)
def version_detail(request, pk: int):
    version = dataset_version_get_for_user(request.user, pk)
    entries = dataset_entries_visible(request.user, version).order_by("held_out", "example_key")
    page = Paginator(entries.only("example_key", "held_out", "content", "example_id"), 100)
    return render(
        request,
        "golden/version_detail.html",
        {
            "version": version,
            "entries": page.get_page(request.GET.get("page")),
            "visible_count": version_visible_count(request.user, version),
            "parts": EXPORT_PARTS if sees_held_out(request.user) else ("open",),
        },
    )


def version_export_response(user, version, part: str) -> StreamingHttpResponse:
    """Stream one part of a version as JSONL; the held-out part exists only for curators."""
    if part not in EXPORT_PARTS or (part == "held_out" and not sees_held_out(user)):
        raise Http404("No such export part.")
    response = StreamingHttpResponse(
        export_lines(user, version, part), content_type="application/x-ndjson; charset=utf-8"
    )
    # RFC 6266: a name with a newline or non-ASCII goes percent-encoded in filename*.
    filename = f"{version.name}-{part}.jsonl"
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response


@require_role(ANNOTATOR)
def version_export(request, pk: int, part: str):
    version = dataset_version_get_for_user(request.user, pk)
    return version_export_response(request.user, version, part)


@require_role(ANNOTATOR)
def version_diff(request):
    versions = dataset_version_list(request.user)
    by_pk = {str(v.pk): v for v in versions}
    old, new = by_pk.get(request.GET.get("old", "")), by_pk.get(request.GET.get("new", ""))
    diff = dataset_version_diff(request.user, old, new) if old and new else None
    return render(
        request,
        "golden/version_diff.html",
        {"versions": versions, "old": old, "new": new, "diff": diff},
    )


@require_role(CURATOR)
def dataset_import(request):
    form = DatasetImportForm(request.POST or None, request.FILES or None)
    errors = []
    if request.method == "POST" and form.is_valid():
        sources = [(form.cleaned_data["open_file"].name, form.cleaned_data["open_file"])]
        if form.cleaned_data.get("held_out_file"):
            upload = form.cleaned_data["held_out_file"]
            sources.append((upload.name, upload))
        try:
            result = dataset_import_jsonl(
                sources=sources,
                user=request.user,
                version_name=form.cleaned_data["version_name"],
                note=form.cleaned_data["note"],
            )
        except ImportInvalid as exc:
            errors = exc.errors
        except ApplicationError as exc:
            form.add_error("version_name", exc.message)
        else:
            messages.success(
                request, f"Imported: {result.created} new, {result.updated} updated examples."
            )
            for warning in result.warnings:
                messages.warning(request, warning)
            if result.version:
                return redirect("golden:version_detail", pk=result.version.pk)
            return redirect("golden:example_list")
    status = 400 if request.method == "POST" else 200
    return render(request, "golden/import.html", {"form": form, "errors": errors}, status=status)
