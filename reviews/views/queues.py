"""Queue pages: the list of queues, one queue's items with filters, bulk actions, saved views."""

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.roles import ANNOTATOR, CURATOR, has_role, require_role
from core.errors import ApplicationError
from reviews.access import queue_for_user
from reviews.agreement import answers_fingerprint, queue_agreement_cached
from reviews.bulk import review_items_bulk_apply
from reviews.claims import review_item_claim_next, review_item_claim_next_any
from reviews.forms import BulkActionForm, QueueFilterForm, QueueForm, SavedViewForm
from reviews.models import Queue, SavedView
from reviews.pairwise_judge import queue_judge_summary
from reviews.selectors import (
    annotation_undoable,
    queue_items,
    queue_items_page,
    queue_progress,
    queue_purpose,
    queues_with_counts,
    saved_views_for,
)

PAGE_SIZE = 50
PAGE_POSITION_PARAMS = ("page", "after", "before")


@require_role(ANNOTATOR)
def queue_list(request):
    queues = list(queues_with_counts())
    fingerprint = answers_fingerprint()
    for queue in queues:
        queue.agreement = queue_agreement_cached(queue, fingerprint)
        queue.purpose = queue_purpose(queue)
    return render(request, "reviews/queue_list.html", {"queues": queues})


@require_role(ANNOTATOR)
def queue_detail(request, queue_id: int):
    queue = queue_for_user(request.user, queue_id)
    filter_form = QueueFilterForm(request.GET or None)
    filters = filter_form.filters()
    items = queue_items(queue, filters, request.user)
    listed, error = queue_items_page(items, request.GET, PAGE_SIZE)
    # The filter alone (saved views and bulk actions keep it), without the page's position.
    query = urlencode({k: v for k, v in request.GET.items() if k not in PAGE_POSITION_PARAMS and v})
    context = {
        "queue": queue,
        "filter_form": filter_form,
        "page": listed.page,
        "rows": listed.rows,
        "count": listed.count,
        "count_is_lower_bound": listed.count_is_lower_bound,
        "error": error,
        "query": query,
        "progress": queue_progress(queue, request.user, listed.count, listed.count_is_lower_bound)
        if not filter_form.has_changed()
        else queue_progress(queue, request.user),
        "agreement": queue_agreement_cached(queue),
        "pairwise_judge": queue_judge_summary(queue),
        "saved_views": saved_views_for(request.user, queue),
        "undoable": annotation_undoable(request.user, queue),
        "is_curator": has_role(request.user, CURATOR),
        "annotators": get_user_model()
        .objects.filter(groups__name=ANNOTATOR)
        .order_by("username")
        .only("username"),
    }
    return render(request, "reviews/queue_detail.html", context, status=400 if error else 200)


@require_POST
@require_role(ANNOTATOR)
def queue_claim(request, queue_id: int):
    """Claim the next item and open it; back to the queue when nothing is left."""
    queue = queue_for_user(request.user, queue_id)
    item = review_item_claim_next(user=request.user, queue=queue)
    if item is None:
        messages.info(request, f"Nothing left for you in {queue.name}. Well done.")
        return redirect("reviews:queue_detail", queue_id=queue.pk)
    return redirect("reviews:item_detail", item_id=item.pk)


@require_POST
@require_role(ANNOTATOR)
def claim_any(request):
    """Claim from the most urgent queue that has work for this person."""
    item = review_item_claim_next_any(user=request.user)
    if item is None:
        messages.info(request, "No queue has an item for you right now.")
        return redirect("reviews:queue_list")
    return redirect("reviews:item_detail", item_id=item.pk)


@require_POST
@require_role(CURATOR)
def queue_bulk(request, queue_id: int):
    """A bulk action on the ticked items, or on every item matching the filter."""
    queue = queue_for_user(request.user, queue_id)
    form = BulkActionForm(request.POST)
    back = reverse("reviews:queue_detail", args=[queue.pk]) + "?" + request.POST.get("query", "")
    if not form.is_valid():
        for errors in form.errors.values():
            messages.error(request, " ".join(errors))
        return redirect(back)
    if form.cleaned_data["select_all"]:
        # "Select all" means everything matching the filter, not just the page shown.
        filter_form = QueueFilterForm(QueryDict(request.POST.get("query", "")))
        items = queue_items(queue, filter_form.filters(), request.user)
    else:
        items = queue.items.filter(pk__in=form.selected_ids())
    try:
        count = review_items_bulk_apply(
            items=items,
            action=form.cleaned_data["action"],
            user=request.user,
            assignee=form.cleaned_data.get("assignee"),
        )
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return redirect(back)
    messages.success(request, f"{form.cleaned_data['action'].capitalize()}: {count} items.")
    return redirect(back)


@require_POST
@require_role(ANNOTATOR)
def saved_view_create(request, queue_id: int):
    queue = queue_for_user(request.user, queue_id)
    form = SavedViewForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Give the view a name of up to 100 characters.")
        return redirect("reviews:queue_detail", queue_id=queue.pk)
    SavedView.objects.update_or_create(
        user=request.user,
        queue=queue,
        name=form.cleaned_data["name"],
        defaults={"query": form.cleaned_data["query"]},
    )
    messages.success(request, f"Saved view “{form.cleaned_data['name']}”.")
    return redirect(
        reverse("reviews:queue_detail", args=[queue.pk]) + "?" + form.cleaned_data["query"]
    )


@require_POST
@require_role(ANNOTATOR)
def saved_view_delete(request, view_id: int):
    view = get_object_or_404(SavedView, pk=view_id, user=request.user)
    queue_id = view.queue_id
    view.delete()
    return redirect("reviews:queue_detail", queue_id=queue_id)


@require_role(CURATOR)
def queue_edit(request, queue_id: int | None = None):
    """Create or change a queue (curators)."""
    queue = get_object_or_404(Queue, pk=queue_id) if queue_id else None
    form = QueueForm(request.POST or None, instance=queue)
    if request.method == "POST" and form.is_valid():
        saved = form.save()
        messages.success(request, f"Saved queue {saved.name}.")
        return redirect("reviews:queue_detail", queue_id=saved.pk)
    return render(request, "reviews/queue_edit.html", {"form": form, "queue": queue})
