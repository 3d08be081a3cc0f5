"""The tool catalogue page: what each of a project's tools does, read or write, set by curators."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from accounts.roles import ANNOTATOR, CURATOR, has_role, require_role
from core.errors import ApplicationError
from judges.selectors import tool_catalogue_rows
from metrics.effects import tool_effect_set
from traces.models import Project


@require_role(ANNOTATOR)
def tool_catalogue(request):
    """?project=SLUG; a curator's POST of `tool` and `effect` changes one tool, audited."""
    projects = list(Project.objects.order_by("name").only("pk", "name", "slug"))
    slug = request.GET.get("project") or (projects[0].slug if projects else "")
    project = get_object_or_404(Project, slug=slug) if slug else None
    if request.method == "POST":
        if not has_role(request.user, CURATOR) or project is None:
            raise PermissionDenied("Changing a tool's effect needs the curator role.")
        try:
            row = tool_effect_set(
                project=project,
                tool=request.POST.get("tool", ""),
                effect=request.POST.get("effect", ""),
                user=request.user,
            )
        except ApplicationError as exc:
            messages.error(request, f"{exc.field}: {exc.message}")
        else:
            messages.success(request, f"{row.tool} now counts as a {row.effect}.")
        return redirect(f"{reverse('judges:tool_catalogue')}?project={project.slug}")
    rows = list(tool_catalogue_rows(project)) if project else []
    context = {
        "projects": projects,
        "project": project,
        "rows": rows,
        "can_edit": has_role(request.user, CURATOR),
    }
    return render(request, "judges/tool_catalogue.html", context)
