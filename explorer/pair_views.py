"""Two traces picked on the trace list: read side by side, or sent to a pairwise queue.

The trace list's rows carry a checkbox each; the action bar (templates/explorer/
_pair_picker.html) opens the two ticked ids here (a GET: the list holds no token), and a
curator sends the pair from this page. Sending makes an ordinary pairwise item
(reviews.pairwise): the earlier-started trace is the baseline, the later one the candidate.
"""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from accounts.roles import ANNOTATOR, CURATOR, require_role
from core.errors import ApplicationError
from explorer.views import trace_list_url
from reviews.models import PairwiseSource, Queue, QueueKind
from reviews.pairwise import pairwise_item_create
from traces import selectors
from traces.models import Trace

PICKED = "trace"


class PairPickError(ApplicationError):
    """The picked traces are not a pair that can be read or sent."""


def _picked_pair(request, data) -> tuple[Trace, Trace]:
    """The two picked traces the user may see, earlier-started first."""
    raw = data.getlist(PICKED)
    ids = list(dict.fromkeys(raw))
    if len(ids) != 2 or not all(value.isdigit() for value in ids):
        raise PairPickError(
            f"Pick exactly two traces to compare ({len(ids)} picked).", field=PICKED
        )
    first, second = (selectors.trace_get(request.user, int(value)) for value in ids)
    ordered = sorted((first, second), key=lambda t: (t.started_at is None, t.started_at or 0, t.pk))
    return ordered[0], ordered[1]


def _back_to_list(request):
    back = request.POST.get("next") or request.GET.get("next") or ""
    # Only a query string of the trace list itself: never an address elsewhere.
    query = back.split("?", 1)[1] if back.startswith(reverse("explorer:list") + "?") else ""
    return redirect(trace_list_url(query))


@require_GET
@require_role(ANNOTATOR)
def trace_pair(request):
    """Two traces side by side: the task, each final answer and its whole span tree."""
    try:
        baseline, candidate = _picked_pair(request, request.GET)
    except PairPickError as exc:
        messages.error(request, exc.message)
        return _back_to_list(request)
    same_task = " ".join(baseline.task.split()) == " ".join(candidate.task.split())
    context = {
        "sides": [
            {"letter": "A", "trace": trace, "nodes": selectors.trace_span_nodes(trace)}
            for trace in (baseline, candidate)
        ],
        "same_task": same_task,
        "queues": Queue.objects.filter(kind=QueueKind.PAIRWISE).order_by("name"),
        "picked": [baseline.pk, candidate.pk],
        "next": request.GET.get("next", ""),
        # Came from the list's send button: the send form is focused, one Enter away.
        "send": request.GET.get("send") == "1",
    }
    context["sides"][1]["letter"] = "B"
    return render(request, "explorer/trace_pair.html", context)


@require_POST
@require_role(CURATOR)
def trace_pair_queue(request):
    """Send the picked pair to a pairwise queue; the earlier-started trace is the baseline."""
    try:
        baseline, candidate = _picked_pair(request, request.POST)
        queue_id = request.POST.get("queue") or ""
        queue = None
        if queue_id:
            queue = Queue.objects.filter(pk=int(queue_id) if queue_id.isdigit() else 0).first()
            if queue is None:
                raise PairPickError(f"No queue with id {queue_id!r}.", field="queue")
        item, created = pairwise_item_create(
            baseline_trace=baseline,
            candidate_trace=candidate,
            source=PairwiseSource.TRACES,
            queue=queue,
        )
    except ApplicationError as exc:
        messages.error(request, f"Not sent: {exc.message}")
        return _back_to_list(request)
    verb = "Sent" if created else "Already queued:"
    messages.success(request, f"{verb} the pair to {item.queue.name} as item #{item.pk}.")
    return redirect("reviews:queue_detail", queue_id=item.queue_id)
