"""Judge run pages: start a run, follow its progress, cancel it."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from accounts.roles import ANNOTATOR, CURATOR, has_role, require_role
from core.errors import ApplicationError
from judges import selectors
from judges.forms import JudgeRunForm
from judges.models import JudgeConfig, JudgeRun, JudgeRunStatus
from judges.services import DEFAULT_CONFIG_NAME, judge_run_cancel, judge_run_start


@require_role(ANNOTATOR)
def run_list(request):
    return render(
        request,
        "judges/run_list.html",
        {"runs": selectors.judge_runs_recent(), "can_start": has_role(request.user, CURATOR)},
    )


@require_role(CURATOR)
def run_new(request):
    default_config = JudgeConfig.objects.filter(name=DEFAULT_CONFIG_NAME).first()
    initial = {"sample_rate": 1.0, "config": default_config}
    # Trace pages and the trace list link here with their traces already chosen.
    for name in ("trace_ids", "trace_list_query"):
        if name in request.GET:
            initial[name] = request.GET[name]
    form = JudgeRunForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        traces, trace_filter = selectors.traces_for_run_selection(
            external_ids=data["trace_ids"],
            trace_list_query=data["trace_list_query"],
            spec=form.trace_filter(),
        )
        try:
            run = judge_run_start(
                rubric_version=data["rubric_version"],
                config=data["config"],
                traces=traces,
                user=request.user,
                sample_rate=data["sample_rate"],
                trace_filter=trace_filter,
            )
        except ApplicationError as exc:
            form.add_error(None, exc.message)
        else:
            return redirect("judges:run_detail", run_id=run.pk)
    return render(request, "judges/run_new.html", {"form": form})


def _run_context(request, run: JudgeRun) -> dict:
    return {
        "run": run,
        "progress": selectors.judge_run_progress(run),
        "live": run.status in (JudgeRunStatus.PENDING, JudgeRunStatus.RUNNING),
        "can_cancel": has_role(request.user, CURATOR),
    }


def _run_or_404(run_id: int) -> JudgeRun:
    try:
        return selectors.judge_run_get(run_id)
    except JudgeRun.DoesNotExist:
        raise Http404("No such run.") from None


@require_role(ANNOTATOR)
def run_detail(request, run_id: int):
    run = _run_or_404(run_id)
    context = _run_context(request, run)
    context["verdicts"] = selectors.run_verdicts(request.user, run)
    return render(request, "judges/run_detail.html", context)


@require_GET
@require_role(ANNOTATOR)
def run_progress(request, run_id: int):
    run = _run_or_404(run_id)
    return render(request, "judges/_run_progress.html", _run_context(request, run))


@require_POST
@require_role(CURATOR)
def run_cancel(request, run_id: int):
    run = _run_or_404(run_id)
    try:
        judge_run_cancel(run=run, user=request.user)
    except ApplicationError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "Run cancelled; calls already in flight still finish.")
    return redirect("judges:run_detail", run_id=run.pk)
