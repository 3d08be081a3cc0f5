"""What it means that a person holds a review item: they claimed it and the lock has not run
out. Claims, the queue filters, access checks and the services all ask here."""

from django.db.models import Q
from django.utils import timezone


def held_by(user, now=None) -> Q:
    """Items this person holds now, as a filter."""
    return Q(claimed_by=user, lock_expires_at__gt=now or timezone.now())


def item_held_by(item, user, now=None) -> bool:
    """Whether this person holds an item already loaded."""
    now = now or timezone.now()
    return (
        item.claimed_by_id == user.pk
        and item.lock_expires_at is not None
        and item.lock_expires_at > now
    )
