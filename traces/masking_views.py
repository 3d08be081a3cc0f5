"""A project's masking page: its rules, what they make of a sample text, who changed them."""

from django import forms
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from accounts.roles import CURATOR, require_role
from core.errors import ApplicationError
from traces.masking.detectors import DETECTORS
from traces.masking.rules import (
    builtin_rules_enable,
    masker_build,
    rule_create,
    rule_delete,
    rule_update,
)
from traces.models import MaskingRule, MaskingRuleChange, Project


class MaskingRuleForm(forms.Form):
    kind = forms.ChoiceField(choices=MaskingRule.Kind.choices)
    detector = forms.ChoiceField(
        choices=[("", "—")] + [(d.name, d.title) for d in DETECTORS.values()], required=False
    )
    pattern = forms.CharField(
        required=False,
        max_length=500,
        help_text="A regular expression (pattern rules) or an attribute-name glob such as "
        "*.password (attribute rules).",
    )
    label = forms.CharField(required=False, max_length=40, help_text="The mark's name.")
    action = forms.ChoiceField(
        choices=MaskingRule.Action.choices, initial=MaskingRule.Action.PSEUDONYM
    )


class MaskingPreviewForm(forms.Form):
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), max_length=100_000)


@require_role(CURATOR)
def project_masking(request, slug: str):
    project = get_object_or_404(Project, slug=slug)
    form = MaskingRuleForm(request.POST if request.POST.get("add") else None)
    preview_form = MaskingPreviewForm(request.POST if request.POST.get("preview") else None)
    preview = None
    if form.is_bound and form.is_valid():
        try:
            rule_create(project, form.cleaned_data, request.user)
        except ApplicationError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        else:
            messages.success(request, "Rule added: it applies to what arrives from now on.")
            return redirect("traces:project_masking", slug=slug)
    if preview_form.is_bound and preview_form.is_valid():
        masker = masker_build(project.pk)
        text = preview_form.cleaned_data["text"]
        preview = masker.text(text) if masker else text
    context = {
        "project": project,
        "rules": project.masking_rules.all(),
        "form": form,
        "preview_form": preview_form,
        "preview": preview,
        "changes": MaskingRuleChange.objects.filter(project=project)[:50],
        "detectors": DETECTORS.values(),
    }
    status = 400 if form.errors else 200
    return render(request, "traces/project_masking.html", context, status=status)


@require_POST
@require_role(CURATOR)
def project_masking_rule(request, slug: str, rule_id: int):
    """Turn a rule on or off, or delete it."""
    rule = get_object_or_404(MaskingRule, project__slug=slug, pk=rule_id)
    if request.POST.get("delete"):
        rule_delete(rule, request.user)
        messages.success(request, "Rule deleted.")
    else:
        rule_update(rule, {"enabled": not rule.enabled}, request.user)
        messages.success(request, f"Rule turned {'on' if rule.enabled else 'off'}.")
    return redirect("traces:project_masking", slug=slug)


@require_POST
@require_role(CURATOR)
def project_masking_builtins(request, slug: str):
    project = get_object_or_404(Project, slug=slug)
    made = builtin_rules_enable(project, request.user)
    messages.success(request, f"{len(made)} built-in detector{'s' if len(made) != 1 else ''} on.")
    return redirect("traces:project_masking", slug=slug)
