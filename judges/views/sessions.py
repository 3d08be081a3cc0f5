"""Judging a whole session: pick a rubric and config, and its traces are judged as one."""

from django import forms
from django.shortcuts import redirect, render

from accounts.roles import CURATOR, require_role
from core.errors import ApplicationError
from judges.forms import JudgeRunForm
from judges.models import JudgeConfig
from judges.services import DEFAULT_CONFIG_NAME, judge_run_start
from traces.session_selectors import session_get


class SessionJudgeForm(forms.Form):
    rubric_version = JudgeRunForm.base_fields["rubric_version"]
    config = JudgeRunForm.base_fields["config"]


@require_role(CURATOR)
def session_judge(request, session_id: int):
    """Start a run that judges the session's traces together, both passes, one verdict."""
    session = session_get(request.user, session_id)
    initial = {"config": JudgeConfig.objects.filter(name=DEFAULT_CONFIG_NAME).first()}
    form = SessionJudgeForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            run = judge_run_start(
                rubric_version=form.cleaned_data["rubric_version"],
                config=form.cleaned_data["config"],
                traces=None,
                sessions=[session.pk],
                user=request.user,
                trace_filter={"session_ids": 1},
            )
        except ApplicationError as exc:
            form.add_error(None, exc.message)
        else:
            return redirect("judges:run_detail", run_id=run.pk)
    return render(request, "judges/session_judge.html", {"form": form, "session": session})
