"""Rubric pages: versions, diffs, edit, preview, judging new traces online."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from accounts.roles import ANNOTATOR, CURATOR, has_role, require_role
from core.errors import ApplicationError
from core.params import int_param
from judges import rubrics, selectors
from judges.adaptive_rubrics.selectors import criteria_page_rows
from judges.forms import RubricOnlineForm, RubricVersionForm
from judges.models import Rubric, ScoreType
from judges.prompts import prompt_preview
from judges.rubrics import ONLINE_FIELDS, RubricTemplateError, rubric_version_create
from judges.session_online import session_idle_minutes

PREVIEW_TRACE_CHOICES = 30


def _rubric_or_404(rubric_id: int) -> Rubric:
    return get_object_or_404(Rubric, pk=rubric_id)


@require_role(ANNOTATOR)
def rubric_list(request):
    return render(request, "judges/rubric_list.html", {"rubrics": selectors.rubric_list()})


@require_role(ANNOTATOR)
def rubric_detail(request, rubric_id: int):
    rubric = _rubric_or_404(rubric_id)
    versions = selectors.rubric_versions(rubric)
    if not versions:
        raise Http404("The rubric has no versions.")
    by_number = {v.number: v for v in versions}
    shown = by_number.get(int_param(request.GET.get("version")), versions[0])
    diff_against = by_number.get(int_param(request.GET.get("against")) or shown.number - 1)
    diffs = selectors.rubric_version_diff(diff_against, shown) if diff_against else []
    context = {
        "rubric": rubric,
        "versions": versions,
        "shown": shown,
        "diff_against": diff_against,
        "diffs": diffs,
        "traces": selectors.traces_for_prompt_preview()
        .only("pk", "task")
        .order_by("-pk")[:PREVIEW_TRACE_CHOICES],
        "online_form": RubricOnlineForm(
            initial={name: getattr(rubric, name) for name in ONLINE_FIELDS}
        ),
        "session_idle_minutes": session_idle_minutes(rubric),
        "can_edit": has_role(request.user, CURATOR),
        "stats": criteria_page_rows(shown) if shown.score_type == ScoreType.CRITERIA else [],
    }
    return render(request, "judges/rubric_detail.html", context)


@require_role(CURATOR)
def rubric_edit(request, rubric_id: int):
    rubric = _rubric_or_404(rubric_id)
    latest = rubric.latest_version()
    form = RubricVersionForm(request.POST or None, instance=latest)
    problems = []
    if request.method == "POST" and form.is_valid():
        fields = {name: form.cleaned_data[name] for name in form.Meta.fields}
        try:
            version = rubric_version_create(rubric=rubric, user=request.user, **fields)
        except RubricTemplateError as exc:
            problems = exc.problems
            for problem in problems:
                if problem.field in form.fields:
                    form.add_error(problem.field, str(problem))
        else:
            messages.success(request, f"Saved version {version.number}.")
            return redirect("judges:rubric_detail", rubric_id=rubric.pk)
    return render(
        request,
        "judges/rubric_edit.html",
        {"rubric": rubric, "form": form, "latest": latest, "problems": problems},
    )


@require_POST
@require_role(CURATOR)
def rubric_online_update(request, rubric_id: int):
    rubric = _rubric_or_404(rubric_id)
    form = RubricOnlineForm(request.POST)
    if not form.is_valid():
        problems = "; ".join(f"{name}: {' '.join(errors)}" for name, errors in form.errors.items())
        messages.error(request, f"Online judging not changed: {problems}")
        return redirect("judges:rubric_detail", rubric_id=rubric.pk)
    try:
        rubrics.rubric_online_update(rubric=rubric, **form.cleaned_data)
    except ApplicationError as exc:
        messages.error(request, f"Online judging not changed: {exc.message}")
    else:
        messages.success(request, "Online judging updated.")
    return redirect("judges:rubric_detail", rubric_id=rubric.pk)


@require_GET
@require_role(ANNOTATOR)
def rubric_preview(request, rubric_id: int):
    rubric = _rubric_or_404(rubric_id)
    version = rubric.versions.filter(number=int_param(request.GET.get("version"))).first()
    trace = (
        selectors.traces_for_prompt_preview().filter(pk=int_param(request.GET.get("trace"))).first()
    )
    context = {"version": version, "trace": trace, "error": "", "prompt": None}
    if version is None or trace is None:
        context["error"] = "Choose a version and a trace to preview."
    else:
        context["prompt"], context["error"] = prompt_preview(version, trace)
    return render(request, "judges/_rubric_preview.html", context)
