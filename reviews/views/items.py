"""The item page and what a reviewer does there: resolve, skip, flag, comment, undo."""

from django.conf import settings
from django.contrib import messages
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from accounts.roles import ANNOTATOR, CURATOR, has_role, require_role
from core.errors import ApplicationError
from reviews.access import annotation_for_user, review_item_for_action, review_item_for_user
from reviews.claims import LockLost, review_item_lock_renew
from reviews.forms import CommentForm, FlagForm, ResolveForm
from reviews.models import FailureTag, QueueKind, ReviewStatus
from reviews.selectors import (
    annotation_previous,
    annotation_to_restore,
    annotation_undoable,
    criteria_questions,
    review_item_page,
    review_progress,
)
from reviews.services import (
    annotation_undo,
    review_item_adjudicate,
    review_item_comment,
    review_item_flag,
    review_item_resolve,
    review_item_skip,
)
from reviews.trace_actions import review_item_flag_trace
from reviews.views.next_item import advance_to_next, after_answer
from reviews.views.pairwise import pairwise_item_render
from traces.selectors import traces_visible


def _restored_form(annotation) -> ResolveForm:
    """The form filled with an answer the person took back with undo."""
    known = set(FailureTag.values)
    tags = annotation.failure_tags or []
    return ResolveForm(
        initial={
            "score": annotation.score,
            "explanation": annotation.explanation,
            "failure_tags": [t for t in tags if t in known],
            "custom_tags": ", ".join(t for t in tags if t not in known),
            "promote": annotation.promoted,
        }
    )


def _render_item(request, item, form=None, *, status=200, lock_error=""):
    page = review_item_page(item.pk, request.user)
    item = page.item
    holds = (
        item.claimed_by_id == request.user.pk
        and item.status == ReviewStatus.OPEN
        and item.lock_expires_at is not None
        and item.lock_expires_at > timezone.now()
    )
    can_adjudicate = has_role(request.user, CURATOR) and item.status == ReviewStatus.OPEN
    if form is None and holds:
        restored = annotation_to_restore(request.user, item)
        form = _restored_form(restored) if restored else None
    previous = annotation_previous(request.user, item.queue, item.pk)
    review_config = {
        "holds": holds,
        "heartbeatUrl": reverse("reviews:item_heartbeat", args=[item.pk]),
        # The page renews its 15-minute lock this often while it is open.
        "heartbeatSeconds": settings.REVIEW_HEARTBEAT_SECONDS,
        "previousUrl": reverse("reviews:item_detail", args=[previous.item_id]) if previous else "",
    }
    context = {
        "review_config": review_config,
        "page": page,
        "item": item,
        "form": form or ResolveForm(),
        "holds": holds,
        "can_adjudicate": can_adjudicate and not holds,
        "lock_error": lock_error,
        "failure_tags": FailureTag.choices,
        "undoable": annotation_undoable(request.user, item.queue),
        "progress": review_progress(request.user, item),
    }
    return render(request, "reviews/item_detail.html", context, status=status)


@require_role(ANNOTATOR)
def item_detail(request, item_id: int):
    item = review_item_for_user(request.user, item_id)
    if item.queue.kind == QueueKind.PAIRWISE:
        return pairwise_item_render(request, item)
    return _render_item(request, item)


@require_POST
@require_role(ANNOTATOR)
def item_resolve(request, item_id: int):
    """Save the answer and advance; after a lost lock the page comes back with the text kept."""
    item = review_item_for_action(request.user, item_id)
    form = ResolveForm(request.POST)
    if not form.is_valid():
        return _render_item(request, item, form, status=400)
    adjudicate = request.POST.get("mode") == "adjudicate"
    write = review_item_adjudicate if adjudicate else review_item_resolve
    questions = criteria_questions(item)
    if questions and form.criteria_missing(len(questions)):
        form.add_error(None, "Answer every criterion with yes or no.")
        return _render_item(request, item, form, status=400)
    try:
        write(
            item=item,
            user=request.user,
            score=form.cleaned_data["score"],
            criteria_results=form.criteria_answers(len(questions)),
            explanation=form.cleaned_data["explanation"],
            failure_tags=form.tags(),
            promote=form.cleaned_data["promote"],
        )
    except LockLost as exc:
        return _render_item(request, item, form, status=409, lock_error=exc.message)
    except ApplicationError as exc:
        form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        return _render_item(request, item, form, status=exc.status_code)
    return after_answer(request, item, adjudicate)


@require_POST
@require_role(ANNOTATOR)
def item_skip(request, item_id: int):
    item = review_item_for_action(request.user, item_id)
    review_item_skip(item=item, user=request.user)
    return advance_to_next(request, item.queue)


@require_POST
@require_role(ANNOTATOR)
def item_flag(request, item_id: int):
    item = review_item_for_action(request.user, item_id)
    form = FlagForm(request.POST)
    note = form.cleaned_data["note"] if form.is_valid() else ""
    try:
        review_item_flag(item=item, user=request.user, note=note)
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return redirect("reviews:queue_detail", queue_id=item.queue_id)
    messages.success(request, f"Item #{item.pk} sent to a curator.")
    return advance_to_next(request, item.queue)


@require_POST
@require_role(ANNOTATOR)
def item_comment(request, item_id: int):
    item = review_item_for_user(request.user, item_id)
    form = CommentForm(request.POST)
    if form.is_valid():
        review_item_comment(item=item, user=request.user, text=form.cleaned_data["text"])
    else:
        messages.error(request, "Write a comment of up to 5000 characters.")
    return redirect("reviews:item_detail", item_id=item.pk)


@require_POST
@require_role(ANNOTATOR)
def item_heartbeat(request, item_id: int):
    """Renews the lock while the page is open; 409 tells the page the lock is gone."""
    item = review_item_for_action(request.user, item_id)
    try:
        expires = review_item_lock_renew(item=item, user=request.user)
    except LockLost as exc:
        return JsonResponse({"error": {"code": exc.code, "message": exc.message}}, status=409)
    return JsonResponse({"lock_expires_at": expires.isoformat()})


@require_POST
@require_role(ANNOTATOR)
def item_undo(request, annotation_id: int):
    annotation = annotation_for_user(request.user, annotation_id)
    try:
        item = annotation_undo(annotation=annotation, user=request.user)
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return redirect("reviews:item_detail", item_id=annotation.item_id)
    messages.success(request, f"Undone: item #{item.pk} is open again for your answer.")
    return redirect("reviews:item_detail", item_id=item.pk)


@require_POST
@require_role(ANNOTATOR)
def trace_flag(request, trace_id: int):
    """A "send to review" button anywhere a trace is shown; back to the trace page."""
    trace = get_object_or_404(traces_visible(request.user), pk=trace_id)
    form = FlagForm(request.POST)
    note = form.cleaned_data["note"] if form.is_valid() else ""
    item = review_item_flag_trace(trace=trace, user=request.user, note=note)
    messages.success(request, f"Sent to the {item.queue.name} review queue as item #{item.pk}.")
    return redirect("explorer:detail", trace_id=trace.pk)
