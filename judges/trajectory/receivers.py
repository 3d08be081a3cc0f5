"""Receives traces -> judges hand-off: a settled trace gets its red flags checked and its tools
catalogued, so curators can say what each does before any run is scored."""

from django.dispatch import receiver

from judges.trajectory.attribution import span_components_assign
from judges.trajectory.effects import tool_catalogue_ensure, tool_definitions
from judges.trajectory.redflag_store import red_flags_check
from traces.models import SpanKind
from traces.signals import trace_completed


@receiver(trace_completed, dispatch_uid="judges.trajectory.red_flags")
def check_completed_trace(sender, trace, **kwargs):
    span_components_assign(trace)
    red_flags_check(trace)
    called = trace.spans.filter(kind=SpanKind.TOOL).values_list("tool_name", flat=True)
    tool_catalogue_ensure(trace.project, tool_definitions(trace.context), called)
