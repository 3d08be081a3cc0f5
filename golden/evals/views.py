"""Eval-run pages: the list of runs and two runs side by side."""

from django.shortcuts import render

from accounts.roles import ANNOTATOR, CURATOR, has_role, require_role
from core.errors import ApplicationError
from core.keyset import keyset_page_for_view
from golden.evals.confirmation import people_confirmation
from golden.evals.gate import gate_evaluate
from golden.evals.selectors import EVAL_RUN_ORDER, eval_run_comparison, eval_run_list
from golden.evals.services import eval_run_lookup

RUNS_PER_PAGE = 50


def _run_list_context(request) -> dict:
    """One page of runs, newest first; the compare form offers the runs of that page."""
    page, error = keyset_page_for_view(eval_run_list(), EVAL_RUN_ORDER, request.GET, RUNS_PER_PAGE)
    return {"page": page, "runs": page.rows, "error": error}


@require_role(ANNOTATOR)
def eval_run_list_page(request):
    context = _run_list_context(request)
    status = 400 if context["error"] else 200
    return render(request, "golden/evals/run_list.html", context, status=status)


@require_role(ANNOTATOR)
def eval_run_compare_page(request):
    """?baseline=ID&candidate=ID; tasks that got worse are listed first."""
    if not request.GET.get("baseline") and not request.GET.get("candidate"):
        # Nothing chosen yet is a question, not a missing page: offer the choice.
        context = {
            **_run_list_context(request),
            "notice": "Choose a baseline and a candidate to compare.",
        }
        return render(request, "golden/evals/run_list.html", context)
    try:
        baseline = eval_run_lookup(request.GET.get("baseline"), field="baseline")
        candidate = eval_run_lookup(request.GET.get("candidate"), field="candidate")
    except ApplicationError as exc:
        context = {**_run_list_context(request), "error": exc.message}
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
        "people": gate.get("people") or people_confirmation(baseline, candidate),
        "can_send_pairs": has_role(request.user, CURATOR),
    }
    return render(request, "golden/evals/compare.html", context)
