"""Receives the reviews -> golden hand-off: a resolution marked for promotion."""

from django.dispatch import receiver

from golden.services import golden_example_promote
from reviews.signals import review_item_promoted


@receiver(review_item_promoted, dispatch_uid="golden.promote_item")
def promote_resolved_item(sender, item, annotation, user, **kwargs):
    golden_example_promote(item=item, annotation=annotation, user=user)
