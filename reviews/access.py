"""One access rule per review object, used by every page and API endpoint."""

from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404

from accounts.roles import ANNOTATOR, CURATOR, has_role
from reviews.holds import item_held_by
from reviews.models import Annotation, Queue, ReviewItem
from traces.selectors import traces_visible


def review_items_visible(user, items):
    """Held-out golden traces stay with curators: annotators never see or label them."""
    return traces_visible(user, items, via="trace")


def queue_hides_judge_from(user, queue: Queue) -> bool:
    """Lists of a blind queue say "needs review" to annotators: no reason, no verdict detail."""
    return queue.blind and not has_role(user, CURATOR)


def queue_for_user(user, queue_id: int) -> Queue:
    """Annotators and above see every queue."""
    if not has_role(user, ANNOTATOR):
        raise PermissionDenied("The review queue needs the annotator role.")
    return get_object_or_404(Queue, pk=queue_id)


def review_item_for_user(user, item_id: int) -> ReviewItem:
    """Curators see every item; an annotator sees an item they hold or have answered."""
    if not has_role(user, ANNOTATOR):
        raise PermissionDenied("The review queue needs the annotator role.")
    item = get_object_or_404(
        review_items_visible(user, ReviewItem.objects.select_related("queue")), pk=item_id
    )
    if review_item_ids_openable(user, [item]):
        return item
    raise PermissionDenied("This item is not yours: claim the next item from its queue.")


def review_item_ids_openable(user, items) -> set[int]:
    """Which of these loaded items the person may open (the rule review_item_for_user keeps):
    a curator any; an annotator those they hold or have answered. One query at most."""
    items = list(items)
    if not items or not has_role(user, ANNOTATOR):
        return set()
    if has_role(user, CURATOR):
        return {item.pk for item in items}
    held = {item.pk for item in items if item_held_by(item, user)}
    rest = [item.pk for item in items if item.pk not in held]
    answered = set(
        Annotation.objects.filter(item_id__in=rest, annotator=user).values_list(
            "item_id", flat=True
        )
        if rest
        else ()
    )
    return held | answered


def review_item_for_action(user, item_id: int) -> ReviewItem:
    """An item an annotator acts on; the service then checks the lock, so a lost lock is told."""
    if not has_role(user, ANNOTATOR):
        raise PermissionDenied("The review queue needs the annotator role.")
    return get_object_or_404(
        review_items_visible(user, ReviewItem.objects.select_related("queue")), pk=item_id
    )


def annotation_for_user(user, annotation_id: int) -> Annotation:
    """Only the annotator who wrote an answer may act on it."""
    if not has_role(user, ANNOTATOR):
        raise PermissionDenied("The review queue needs the annotator role.")
    return get_object_or_404(Annotation, pk=annotation_id, annotator=user)
