"""The compare page's pairwise review: send the tasks that moved to people."""

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.roles import CURATOR, require_role
from core.errors import ApplicationError
from golden.evals.confirmation import REGRESSED, eval_run_pairs_enqueue
from golden.evals.services import eval_run_lookup


@require_POST
@require_role(CURATOR)
def eval_run_pairs_send(request):
    """POST baseline, candidate, direction (regressed or improved); back to the compare page."""
    baseline_id, candidate_id = request.POST.get("baseline"), request.POST.get("candidate")
    try:
        baseline = eval_run_lookup(baseline_id, field="baseline")
        candidate = eval_run_lookup(candidate_id, field="candidate")
        direction = request.POST.get("direction", REGRESSED)
        counts = eval_run_pairs_enqueue(baseline, candidate, direction=direction)
    except ApplicationError as exc:
        messages.error(request, f"{exc.field}: {exc.message}" if exc.field else exc.message)
    else:
        lone = counts["without_trials"]
        note = f" {lone} had no trial in one of the runs." if lone else ""
        messages.success(
            request,
            f"Sent {counts['created']} {direction} task(s) to pairwise review"
            f" ({counts['existing']} were already there).{note}",
        )
    query = f"?baseline={baseline_id or ''}&candidate={candidate_id or ''}"
    return redirect(reverse("golden:eval_run_compare") + query + "#people")
