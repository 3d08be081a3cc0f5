"""Eval-run pages: the list of runs and two runs side by side."""

from django.shortcuts import render

from accounts.roles import ANNOTATOR, require_role
from core.errors import ApplicationError
from golden.evals.gate import gate_evaluate
from golden.evals.selectors import eval_run_comparison, eval_run_list
from golden.evals.services import eval_run_lookup


@require_role(ANNOTATOR)
def eval_run_list_page(request):
    runs = list(eval_run_list()[:200])
    return render(request, "golden/evals/run_list.html", {"runs": runs})


@require_role(ANNOTATOR)
def eval_run_compare_page(request):
    """?baseline=ID&candidate=ID; tasks that got worse are listed first."""
    if not request.GET.get("baseline") and not request.GET.get("candidate"):
        # Nothing chosen yet is a question, not a missing page: offer the choice.
        runs = list(eval_run_list()[:200])
        context = {"runs": runs, "notice": "Choose a baseline and a candidate to compare."}
        return render(request, "golden/evals/run_list.html", context)
    try:
        baseline = eval_run_lookup(request.GET.get("baseline"), field="baseline")
        candidate = eval_run_lookup(request.GET.get("candidate"), field="candidate")
    except ApplicationError as exc:
        runs = list(eval_run_list()[:200])
        context = {"runs": runs, "error": exc.message}
        return render(request, "golden/evals/run_list.html", context, status=404)
    try:
        gate = gate_evaluate(baseline, candidate, user=request.user)
    except ApplicationError as exc:
        # An unscored run has no gate decision yet; the page says why.
        gate = {"error": exc.message}
    context = {
        "baseline": baseline,
        "candidate": candidate,
        "comparison": eval_run_comparison(baseline, candidate, request.user),
        "gate": gate,
    }
    return render(request, "golden/evals/compare.html", context)
