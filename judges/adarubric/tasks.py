"""Celery task: the LLM classifier types a trace no attribute or rule typed, then the rubrics
of that type judge it online."""

from celery import shared_task

from judges.adarubric.task_types import trace_task_type_assign
from judges.providers import TRANSIENT_ERRORS
from traces.models import Trace


@shared_task(
    acks_late=True,
    ignore_result=True,
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=True,
    max_retries=3,
)
def trace_task_type_classify_task(trace_id: int) -> str:
    """Classify one trace (a correction still wins); its type's rubrics then judge it."""
    from judges.services import trace_judge_online

    trace = Trace.objects.filter(pk=trace_id).first()
    if trace is None:
        return ""
    task_type = trace_task_type_assign(trace)
    if task_type:
        trace_judge_online(trace, task_typed_only=True)
    return task_type
