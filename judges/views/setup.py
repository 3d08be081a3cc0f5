"""Pages where curators set judging up: a new rubric and a new judge config."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from accounts.roles import CURATOR, require_role
from core.errors import ApplicationError
from core.params import int_param
from judges import selectors
from judges.configs import judge_config_create
from judges.forms import JudgeConfigForm, RubricCreateForm
from judges.models import JudgeConfig, Rubric, RubricVersion
from judges.prompts import prompt_preview, rubric_templates_check
from judges.rubrics import RubricTemplateError, rubric_create, rubric_version_fields
from judges.views.rubrics import PREVIEW_TRACE_CHOICES


def _seed_version(request) -> RubricVersion | None:
    rubric = Rubric.objects.filter(pk=int_param(request.GET.get("from"))).first()
    return rubric.latest_version() if rubric else None


def _preview_traces():
    return (
        selectors.traces_for_prompt_preview()
        .only("pk", "task")
        .order_by("-pk")[:PREVIEW_TRACE_CHOICES]
    )


@require_role(CURATOR)
def rubric_new(request):
    seed = _seed_version(request)
    form = RubricCreateForm(request.POST or None, initial=rubric_version_fields(seed))
    problems = []
    if request.method == "POST" and form.is_valid():
        data = dict(form.cleaned_data)
        rubric_fields = {k: data.pop(k) for k in ("name", "description", "task_type")}
        try:
            rubric = rubric_create(user=request.user, **rubric_fields, **data)
        except ApplicationError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        except RubricTemplateError as exc:
            problems = exc.problems
        else:
            messages.success(request, f"Created {rubric.name} with version 1.")
            return redirect("judges:rubric_detail", rubric_id=rubric.pk)
    context = {
        "form": form,
        "problems": problems,
        "seed": seed,
        "seeds": Rubric.objects.order_by("name").only("pk", "name"),
        "traces": _preview_traces(),
    }
    return render(request, "judges/rubric_new.html", context)


@require_POST
@require_role(CURATOR)
def rubric_new_preview(request):
    """The unsaved version's template check and its prompt on a real trace."""
    form = RubricCreateForm(request.POST)
    valid = form.is_valid()
    fields = {k: form.cleaned_data[k] for k in form.Meta.fields if k in form.cleaned_data}
    version = RubricVersion(**fields)
    trace_id = int_param(request.POST.get("preview_trace"))
    trace = selectors.traces_for_prompt_preview().filter(pk=trace_id).first()
    context = {"version": None, "trace": trace, "error": "", "prompt": None, "draft": True}
    problems = rubric_templates_check(version) if valid else []
    if not valid:
        context["error"] = "Fix the fields marked on the form first: " + ", ".join(form.errors)
    elif problems:
        context["error"] = "; ".join(f"{p.field}: {p}" for p in problems)
    elif trace is None:
        context["error"] = "Choose a trace to preview on."
    else:
        context["prompt"], context["error"] = prompt_preview(version, trace)
    return render(request, "judges/_rubric_preview.html", context)


@require_role(CURATOR)
def config_list(request):
    form = JudgeConfigForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            config = judge_config_create(**form.cleaned_data)
        except ApplicationError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        else:
            messages.success(request, f"Judge config {config.name} created.")
            return redirect("judges:config_list")
    configs = JudgeConfig.objects.order_by("name")
    return render(request, "judges/config_list.html", {"form": form, "configs": configs})
