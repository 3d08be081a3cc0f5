"""Keeps traces' held-out flag in step with the examples (golden/held_out_traces.py).

An annotator's "promote" is a suggestion: the item leads the curator's promote list, and an
example exists only once a curator saves the draft.
"""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from golden.held_out_traces import (
    example_traces,
    held_out_sync_is_deferred,
    traces_held_out_sync,
)
from golden.models import GoldenExample
from traces.signals import spans_ingested


# Every save (services, admin) and delete of one example; bulk writes call the sync themselves.
@receiver(post_save, sender=GoldenExample, dispatch_uid="golden.trace_held_out_on_save")
@receiver(post_delete, sender=GoldenExample, dispatch_uid="golden.trace_held_out_on_delete")
def example_trace_held_out_sync(sender, instance, **kwargs):
    if not held_out_sync_is_deferred():
        traces_held_out_sync(example_traces([instance]))


# Inside ingest's transaction: a trial of a held-out task is held out before anyone sees it.
@receiver(spans_ingested, dispatch_uid="golden.trace_held_out_on_ingest")
def ingested_trace_held_out_sync(sender, trace_ids, held_out_trace_ids=None, **kwargs):
    traces_held_out_sync(trace_ids, held_out_trace_ids)
