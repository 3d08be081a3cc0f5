"""Scoring a trace from its page, without a queue."""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.roles import ANNOTATOR, require_role
from core.errors import ApplicationError
from judges.models import RubricVersion, RubricVersionStatus
from reviews.forms import ResolveForm
from reviews.selectors import version_criteria_questions
from reviews.trace_actions import trace_score_direct
from traces.selectors import trace_get


@require_POST
@require_role(ANNOTATOR)
def trace_score(request, trace_id: int):
    """Save the person's score of the trace under a rubric; back to the trace page."""
    trace = trace_get(request.user, trace_id)
    version = get_object_or_404(
        RubricVersion.objects.select_related("rubric"),
        pk=request.POST.get("rubric_version") or 0,
        status=RubricVersionStatus.APPROVED,
    )
    page = reverse("explorer:detail", args=[trace.pk])
    back = redirect(f"{page}?score_rubric={version.pk}#trace-scoring")
    form = ResolveForm(request.POST)
    questions = version_criteria_questions(version)
    if not form.is_valid() or (questions and form.criteria_missing(len(questions))):
        errors = "; ".join(str(e) for errors in form.errors.values() for e in errors)
        messages.error(request, errors or "Answer every criterion with yes or no.")
        return back
    try:
        answer = trace_score_direct(
            trace=trace,
            user=request.user,
            rubric_version=version,
            score=form.cleaned_data["score"],
            criteria_results=form.criteria_answers(len(questions)),
            explanation=form.cleaned_data["explanation"],
            failure_tags=form.tags(),
            blind=request.POST.get("blind") == "1",
        )
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return back
    messages.success(
        request, f"Saved your score {answer.score:g} under {version.rubric.name} v{version.number}."
    )
    return back
