"""The pairwise item page: two trajectories side by side, answered A / B / equal by key."""

from django.conf import settings
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from accounts.roles import ANNOTATOR, CURATOR, has_role, require_role
from core.errors import ApplicationError
from reviews.access import review_item_for_action
from reviews.claims import LockLost
from reviews.models import Queue, ReviewStatus
from reviews.pairwise import SIDES, pairwise_answer, pairwise_layout, pairwise_questions
from reviews.pairwise_judge import pairwise_pairs_judge
from reviews.pairwise_judge_pick import pairwise_judge_pick
from reviews.scoring import MAX_EXPLANATION_CHARS
from reviews.selectors import annotation_undoable, review_progress
from reviews.views.next_item import after_answer
from traces.models import Trace
from traces.selectors import trace_span_nodes


def _holds(item, user) -> bool:
    return (
        item.claimed_by_id == user.pk
        and item.status == ReviewStatus.OPEN
        and item.lock_expires_at is not None
        and item.lock_expires_at > timezone.now()
    )


def pairwise_item_render(request, item, *, answers=None, explanation="", error="", status=200):
    """The page of a pairwise item (the item page hands pairwise items here)."""
    comparison = item.pairwise
    layout = pairwise_layout(comparison)
    traces = Trace.objects.in_bulk([layout.left_trace_id, layout.right_trace_id])
    user = request.user
    is_curator = has_role(user, CURATOR)
    active = list(
        item.annotations.filter(undone_at__isnull=True)
        .select_related("annotator")
        .order_by("created_at", "pk")
    )
    mine = next((a for a in reversed(active) if a.annotator_id == user.pk), None)
    holds = _holds(item, user)
    questions = pairwise_questions(item)
    judge_pick = pairwise_judge_pick(item)
    if answers is None and mine is None and judge_pick and judge_pick["sure"]:
        # Pre-filled with the judge's pick; the person confirms or changes it.
        answers = judge_pick["answers"]
    answers = list(answers or [])
    rows = [
        {"index": i, "question": q, "answer": answers[i] if i < len(answers) else ""}
        for i, q in enumerate(questions)
    ]
    # Which side is the candidate is told only after one's own answer, and to curators.
    reveal = is_curator or mine is not None
    context = {
        "item": item,
        "comparison": comparison,
        "sides": [
            {
                "letter": "A",
                "trace": traces[layout.left_trace_id],
                "nodes": trace_span_nodes(traces[layout.left_trace_id]),
                "role": "candidate" if layout.candidate_on_left else "baseline",
            },
            {
                "letter": "B",
                "trace": traces[layout.right_trace_id],
                "nodes": trace_span_nodes(traces[layout.right_trace_id]),
                "role": "baseline" if layout.candidate_on_left else "candidate",
            },
        ],
        "rows": rows,
        "judge_pick": judge_pick,
        "choices": SIDES,
        "holds": holds,
        "can_adjudicate": is_curator and item.status == ReviewStatus.OPEN and not holds,
        "reveal": reveal,
        "annotations": [
            {
                "annotation": a,
                "sides": [f"{r.get('side')} ({r.get('preferred')})" for r in a.criteria_results],
            }
            for a in (active if reveal else [])
        ],
        "explanation": explanation,
        "max_explanation": MAX_EXPLANATION_CHARS,
        "error": error,
        "undoable": annotation_undoable(user, item.queue),
        "progress": review_progress(user, item),
        "review_config": {
            "holds": holds,
            "heartbeatUrl": reverse("reviews:item_heartbeat", args=[item.pk]),
            "heartbeatSeconds": settings.REVIEW_HEARTBEAT_SECONDS,
            "questions": len(questions),
        },
    }
    return render(request, "reviews/pairwise_item.html", context, status=status)


@require_POST
@require_role(ANNOTATOR)
def pairwise_item_answer(request, item_id: int):
    """Save the A / B / equal answers and open the next item; errors keep what was chosen."""
    item = review_item_for_action(request.user, item_id)
    if not hasattr(item, "pairwise"):
        messages.error(request, f"Item #{item.pk} is not a pairwise item.")
        return redirect("reviews:item_detail", item_id=item.pk)
    count = len(pairwise_questions(item))
    answers = [request.POST.get(f"answer-{i}", "") for i in range(count)]
    explanation = request.POST.get("explanation", "")
    adjudicate = request.POST.get("mode") == "adjudicate"
    try:
        pairwise_answer(
            item=item,
            user=request.user,
            answers=answers,
            explanation=explanation,
            adjudicate=adjudicate,
        )
    except LockLost as exc:
        return pairwise_item_render(
            request, item, answers=answers, explanation=explanation, error=exc.message, status=409
        )
    except ApplicationError as exc:
        return pairwise_item_render(
            request,
            item,
            answers=answers,
            explanation=explanation,
            error=exc.message,
            status=exc.status_code,
        )
    return after_answer(request, item, adjudicate)


@require_POST
@require_role(CURATOR)
def queue_pairwise_judge(request, queue_id: int):
    """Ask a pairwise queue's judge about the pairs it has not answered yet."""
    queue = get_object_or_404(Queue, pk=queue_id)
    try:
        run = pairwise_pairs_judge(queue, user=request.user)
    except ApplicationError as exc:
        messages.error(request, exc.message)
    else:
        if run is None:
            messages.info(request, "The judge is off, or it has answered every pair already.")
        else:
            messages.success(
                request, f"The judge is comparing {run.trace_count} pairs, each in both orders."
            )
    return redirect("reviews:queue_detail", queue_id=queue.pk)
