"""Receives traces -> judges hand-off: a settled trace gets its red flags checked."""

from django.dispatch import receiver

from judges.trajectory.attribution import span_components_assign
from judges.trajectory.redflags import red_flags_ensure
from traces.signals import trace_completed


@receiver(trace_completed, dispatch_uid="judges.trajectory.red_flags")
def check_completed_trace(sender, trace, **kwargs):
    span_components_assign(trace)
    red_flags_ensure(trace)
