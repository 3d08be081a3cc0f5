"""Blind labelling: while a person holds an unanswered item in a blind queue, what judges said
of that trace is hidden from them, on every page and answer, as on the item page."""

from django.db.models import Q, QuerySet

from accounts.roles import CURATOR, has_role
from reviews.models import PairwiseComparison, ReviewItem
from traces.models import Trace


def trace_ids_blind_for(user) -> QuerySet:
    """Ids of traces on which the user holds an unanswered item in a blind queue."""
    if user is None or not user.is_authenticated or has_role(user, CURATOR):
        return ReviewItem.objects.none().values("trace_id")
    items = ReviewItem.objects.filter(queue__blind=True, status="open", claimed_by=user)
    answered = items.filter(annotations__annotator=user, annotations__undone_at__isnull=True)
    unanswered = items.exclude(pk__in=answered.values("pk"))
    # A pairwise item shows two traces; its own trace is only the left one.
    pairs = PairwiseComparison.objects.filter(item__in=unanswered)
    return Trace.objects.filter(
        Q(pk__in=unanswered.values("trace_id"))
        | Q(pk__in=pairs.values("baseline_trace_id"))
        | Q(pk__in=pairs.values("candidate_trace_id"))
    ).values("pk")


def trace_blind_for(user, trace: Trace) -> bool:
    """True while the user holds an unanswered item on this trace in a blind queue."""
    return Trace.objects.filter(pk=trace.pk, pk__in=trace_ids_blind_for(user)).exists()
