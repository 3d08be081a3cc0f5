"""Task-adaptive rubric pages: task types (rules, corrections, generate), a rubric's criteria."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from accounts.roles import ANNOTATOR, CURATOR, has_role, require_role
from core.errors import ApplicationError
from judges.adaptive_rubrics import selectors
from judges.adaptive_rubrics.forms import (
    CriteriaFormSet,
    GenerateForm,
    TaskTypeCorrectionForm,
    TaskTypeRuleForm,
    criteria_from_formset,
)
from judges.adaptive_rubrics.generation import (
    criteria_version_create,
    generated_rubric_calibration_start,
    rubric_criteria_generate,
    rubric_version_approve,
)
from judges.adaptive_rubrics.task_types import task_type_rule_create, trace_task_type_correct
from judges.models import Rubric, RubricVersionStatus
from traces.models import Trace


@require_role(ANNOTATOR)
def task_types(request):
    context = {
        "summary": selectors.task_type_summary(),
        "rules": selectors.task_type_rules(),
        "corrections": selectors.task_type_corrections(),
        "rule_form": TaskTypeRuleForm(),
        "correction_form": TaskTypeCorrectionForm(),
        "can_edit": has_role(request.user, CURATOR),
    }
    return render(request, "judges/adaptive_rubrics/task_types.html", context)


@require_POST
@require_role(CURATOR)
def task_type_rule_add(request):
    form = TaskTypeRuleForm(request.POST)
    if not form.is_valid():
        messages.error(request, "A rule needs a task type.")
        return redirect("judges:adaptive_task_types")
    data = form.cleaned_data
    try:
        task_type_rule_create(
            task_type=data["task_type"],
            task_pattern=data["task_pattern"],
            tools=data["tools"].split(","),
            priority=data["priority"] or 0,
            user=request.user,
        )
    except ApplicationError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "Rule saved; it types traces that arrive from now on.")
    return redirect("judges:adaptive_task_types")


@require_POST
@require_role(ANNOTATOR)
def task_type_correct(request):
    form = TaskTypeCorrectionForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Give a trace number and a task type.")
        return redirect("judges:adaptive_task_types")
    trace = get_object_or_404(Trace, pk=form.cleaned_data["trace"])
    try:
        trace_task_type_correct(
            trace=trace, task_type=form.cleaned_data["task_type"], user=request.user
        )
    except ApplicationError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request, f"Trace #{trace.pk} is now {trace.task_type}; the correction is kept."
        )
    return redirect("judges:adaptive_task_types")


@require_POST
@require_role(CURATOR)
def criteria_generate(request):
    form = GenerateForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Name a task type.")
        return redirect("judges:adaptive_task_types")
    try:
        draft = rubric_criteria_generate(
            task_type=form.cleaned_data["task_type"], user=request.user
        )
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return redirect("judges:adaptive_task_types")
    messages.success(
        request, f"Draft v{draft.number} generated: check each criterion, then approve."
    )
    return _to_version(draft)


def _to_version(version):
    response = redirect("judges:adaptive_criteria", rubric_id=version.rubric_id)
    response["Location"] += f"?version={version.number}"
    return response


def _version(rubric: Rubric, number):
    versions = rubric.versions.order_by("-number")
    try:
        return versions.get(number=int(number)) if number else versions[0]
    except (ValueError, IndexError, rubric.versions.model.DoesNotExist):
        raise Http404("No such version.") from None


def _initial(version) -> list[dict]:
    return [
        {
            "question": c.get("question", ""),
            "evidence": c.get("evidence", ""),
            "weight": c.get("weight", 1),
            "ORDER": index,
        }
        for index, c in enumerate(version.criteria or [], start=1)
    ]


@require_role(ANNOTATOR)
def rubric_criteria(request, rubric_id: int):
    rubric = get_object_or_404(Rubric, pk=rubric_id)
    version = _version(rubric, request.GET.get("version") or request.POST.get("version"))
    can_edit = has_role(request.user, CURATOR)
    if request.method == "POST":
        if not can_edit:
            raise PermissionDenied
        formset = CriteriaFormSet(request.POST, initial=_initial(version))
        if formset.is_valid():
            try:
                saved = criteria_version_create(
                    rubric=rubric,
                    criteria=criteria_from_formset(formset),
                    user=request.user,
                    note=f"Criteria edited from v{version.number}.",
                )
            except ApplicationError as exc:
                messages.error(request, exc.message)
            else:
                messages.success(request, f"Saved draft v{saved.number}; approve it to use it.")
                return _to_version(saved)
    else:
        formset = CriteriaFormSet(initial=_initial(version))
    context = {
        "rubric": rubric,
        "version": version,
        "versions": rubric.versions.order_by("-number").only("number", "status"),
        "stats": selectors.criteria_page_rows(version),
        "formset": formset,
        "can_edit": can_edit,
        "is_draft": version.status == RubricVersionStatus.DRAFT,
    }
    return render(request, "judges/adaptive_rubrics/criteria.html", context)


@require_POST
@require_role(CURATOR)
def rubric_version_approve_view(request, rubric_id: int, number: int):
    rubric = get_object_or_404(Rubric, pk=rubric_id)
    version = _version(rubric, number)
    try:
        with transaction.atomic():
            approved = rubric_version_approve(version=version, user=request.user)
            run = generated_rubric_calibration_start(version=approved, user=request.user)
    except ApplicationError as exc:
        messages.error(request, exc.message)
    else:
        judged = (
            f" Judging {run.trace_count} traces of the type for people to check." if run else ""
        )
        messages.success(request, f"v{version.number} approved.{judged}")
    return _to_version(version)
