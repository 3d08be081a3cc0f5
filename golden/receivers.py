"""Receives the reviews -> golden hand-off, and keeps source traces' held-out flag in step."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from golden.held_out_traces import traces_held_out_sync
from golden.models import GoldenExample
from golden.services import golden_example_promote
from reviews.signals import review_item_promoted


@receiver(review_item_promoted, dispatch_uid="golden.promote_item")
def promote_resolved_item(sender, item, annotation, user, **kwargs):
    golden_example_promote(item=item, annotation=annotation, user=user)


# Every save (services, admin) and delete of one example; bulk writes call the sync themselves.
@receiver(post_save, sender=GoldenExample, dispatch_uid="golden.trace_held_out_on_save")
@receiver(post_delete, sender=GoldenExample, dispatch_uid="golden.trace_held_out_on_delete")
def example_trace_held_out_sync(sender, instance, **kwargs):
    traces_held_out_sync([instance.source_trace_id])
