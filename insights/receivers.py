"""Receives traces' hand-off: a settled trace joins the nearest topic of its project."""

from django.dispatch import receiver

from insights.models import TopicBuild
from traces.signals import trace_completed


@receiver(trace_completed, dispatch_uid="insights.topic_assign")
def assign_completed_trace_to_topic(sender, trace, **kwargs):
    if trace.held_out:
        return
    newest_build_id = TopicBuild.objects.newest_id(trace.project_id)
    if newest_build_id is None:
        return
    # Imported here, once the project has topics: they load scikit-learn and SciPy (about
    # 120 MiB), which a process completing traces of projects without topics (a web worker
    # taking span trees and transcripts, which complete as they arrive) should not carry.
    from insights.topics import trace_topic_arrive

    trace_topic_arrive(trace, newest_build_id)
