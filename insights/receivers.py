"""Receives traces' hand-off: a settled trace joins the nearest topic of its project."""

from django.dispatch import receiver

from insights.topics import trace_topic_arrive
from traces.signals import trace_completed


@receiver(trace_completed, dispatch_uid="insights.topic_assign")
def assign_completed_trace_to_topic(sender, trace, **kwargs):
    trace_topic_arrive(trace)
