"""Receives traces' hand-off: a settled trace joins the nearest topic of its project."""

from django.dispatch import receiver

from traces.signals import trace_completed


@receiver(trace_completed, dispatch_uid="insights.topic_assign")
def assign_completed_trace_to_topic(sender, trace, **kwargs):
    # Imported here: topics load scikit-learn and SciPy (about 120 MiB), which a process that
    # never completes a trace (a judge worker, most web workers) should not carry.
    from insights.topics import trace_topic_arrive

    trace_topic_arrive(trace)
