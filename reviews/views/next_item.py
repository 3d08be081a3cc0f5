"""Where a person goes after answering or skipping an item, in every kind of queue."""

from django.contrib import messages
from django.shortcuts import redirect

from reviews.claims import review_item_claim_next


def advance_to_next(request, queue, saved=None):
    """Open the person's next item, or the queue page when none is left."""
    following = review_item_claim_next(user=request.user, queue=queue)
    if following is None:
        if saved is not None:
            messages.success(request, f"Saved item #{saved.pk}.")
        messages.info(request, f"Nothing left for you in {queue.name}.")
        return redirect("reviews:queue_detail", queue_id=queue.pk)
    return redirect("reviews:item_detail", item_id=following.pk)


def after_answer(request, item, adjudicated: bool):
    """Where a saved answer leads: an adjudication back to the queue page, saying "Saved" (that
    page has no undo box to say it); any other answer on to the person's next item."""
    if adjudicated:
        messages.success(request, f"Saved item #{item.pk}.")
        return redirect("reviews:queue_detail", queue_id=item.queue_id)
    return advance_to_next(request, item.queue, saved=item)
