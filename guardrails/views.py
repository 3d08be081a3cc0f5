"""The guardrails page of a project: its thresholds (curators change them) and recent blocks."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from accounts.roles import ANNOTATOR, CURATOR, has_role, require_role
from guardrails.forms import GuardrailPolicyForm
from guardrails.models import GuardrailDecision
from guardrails.services import guardrail_policy_set, prerequisites_text
from metrics.models import GuardrailPolicy
from metrics.redflags import flag_rules_build
from traces.models import Project

RECENT_DECISIONS = 20


@require_role(ANNOTATOR)
def guardrail_policy(request):
    """?project=SLUG; a curator's POST sets the thresholds, audited."""
    projects = list(Project.objects.order_by("name").only("pk", "name", "slug"))
    slug = request.GET.get("project") or (projects[0].slug if projects else "")
    project = get_object_or_404(Project, slug=slug) if slug else None
    policy = GuardrailPolicy.objects.filter(project=project).select_related("updated_by").first()
    defaults = flag_rules_build({}, None)
    initial = {
        "loop_repeats": policy.loop_repeats if policy else defaults.loop_repeats,
        "max_steps": policy.max_steps if policy else defaults.max_steps,
        "tool_prerequisites": prerequisites_text(policy.tool_prerequisites if policy else {}),
    }
    form = GuardrailPolicyForm(initial=initial)
    if request.method == "POST":
        if not has_role(request.user, CURATOR) or project is None:
            raise PermissionDenied("Changing guardrail thresholds needs the curator role.")
        form = GuardrailPolicyForm(request.POST)
        if form.is_valid():
            guardrail_policy_set(project=project, user=request.user, **form.cleaned_data)
            messages.success(request, f"Guardrail thresholds of {project.name} saved.")
            return redirect(f"{reverse('judges:guardrail_policy')}?project={project.slug}")
    decisions = (
        GuardrailDecision.objects.filter(project=project)
        .order_by("-created_at", "-pk")
        .only("trace_external_id", "decision", "blocked_by", "next_tool", "steps", "created_at")[
            :RECENT_DECISIONS
        ]
        if project
        else []
    )
    context = {
        "projects": projects,
        "project": project,
        "policy": policy,
        "form": form,
        "can_edit": has_role(request.user, CURATOR),
        "decisions": decisions,
    }
    return render(request, "guardrails/guardrail_policy.html", context)
