"""Writes for the review queue: enqueue, claim, resolve. Reads live in selectors.py."""

from django.db import IntegrityError, transaction

from reviews.models import Queue, ReviewItem

DEFAULT_QUEUE_NAME = "Default"


def queue_for_rubric(rubric) -> Queue:
    """The queue named for a rubric if one exists, else the default queue."""
    if rubric is not None:
        named = Queue.objects.filter(rubric=rubric).order_by("-priority").first()
        if named:
            return named
    queue, _ = Queue.objects.get_or_create(name=DEFAULT_QUEUE_NAME)
    return queue


def review_item_enqueue(
    *, trace, reason, verdict=None, rubric_version=None, detail="", priority=0, queue=None
) -> ReviewItem:
    """Queue a trace for review; a trace is queued once per rubric version and reason."""
    existing = ReviewItem.objects.filter(
        trace=trace, rubric_version=rubric_version, reason=reason
    ).first()
    if existing:
        return existing
    rubric = rubric_version.rubric if rubric_version else None
    queue = queue or queue_for_rubric(rubric)
    try:
        with transaction.atomic():
            return ReviewItem.objects.create(
                queue=queue,
                trace=trace,
                verdict=verdict,
                rubric_version=rubric_version,
                reason=reason,
                detail=detail,
                priority=priority,
            )
    except IntegrityError:
        # Lost a race with another writer: the row it made is the one we wanted.
        return ReviewItem.objects.get(trace=trace, rubric_version=rubric_version, reason=reason)
