"""Celery tasks for judging: thin, idempotent (state first, then acks_late), retried on
transient provider errors only, with the cap and the backoff decided in judges.execution."""

import logging
from importlib import import_module

from celery import shared_task
from celery.signals import worker_init
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection

from core.publish import task_publish, tasks_publish_each
from judges.adaptive_rubrics.task_types import trace_task_type_assign
from judges.batches import judge_batch_collect, judge_run_batch_submit
from judges.concurrency import each_at_once
from judges.execution import judgment_execute, judgments_stale, retry_delay
from judges.models import Judgment, JudgmentStatus
from judges.providers.errors import ProviderTransientError
from judges.services import trace_judge_online
from judges.session_online import sessions_judge_idle
from traces.models import Trace

DISPATCH_BATCH = 500
logger = logging.getLogger(__name__)


@worker_init.connect(dispatch_uid="judges.provider_sdk_load")
def provider_sdk_load(**kwargs) -> None:
    """The default provider's SDK (about 2 s to import) loads as a worker starts, not inside its
    first pass, where it would hold up every green thread's reply; a web process that imports
    these tasks to publish passes does not load it."""
    import_module("judges.providers.anthropic")


@shared_task(bind=True, acks_late=True, max_retries=None, ignore_result=True)
def judge_pass_task(self, judgment_id: int) -> str:
    """Run one judge pass; a transient error comes back as a delayed retry of this task."""
    try:
        outcome = judgment_execute(judgment_id)
    except (OperationalError, InterfaceError) as exc:
        # No connection (pool timeout, "too many clients", a restart) is transient: retry the
        # pass later; a pass claimed before the error is released by the stale sweep.
        connection.close()
        raise self.retry(countdown=retry_delay(self.request.retries), exc=exc) from exc
    if outcome.state == "retry":
        raise self.retry(countdown=outcome.retry_in)
    return outcome.state


@shared_task(acks_late=True, ignore_result=True)
def judge_passes_task(judgment_ids: list[int]) -> list[str]:
    """Run several passes at once (green threads in a gevent worker), each exactly as
    judge_pass_task runs one: the same claim, lease, limit and store. One message for many
    passes: a gevent worker takes in one message per turn of its loop, which a message a pass
    made the bound. The message is acknowledged once every pass has ended or been handed back;
    a worker killed before that gets it redelivered, and the passes it had claimed are skipped
    there and taken over by the stale sweep when their lease runs out, as single passes are."""
    return each_at_once(pass_run_in_group, judgment_ids)


def pass_run_in_group(judgment_id: int) -> str:
    """One pass of judge_passes_task. What judge_pass_task does with `self.retry` (publish the
    pass again after the delay) is done here with a message of its own for the pass."""
    try:
        outcome = judgment_execute(judgment_id)
    except (OperationalError, InterfaceError) as exc:
        # As in judge_pass_task: no connection is transient; a pass claimed before the error
        # is released by the stale sweep.
        return _pass_again(judgment_id, retry_delay(0, exc))
    except Exception:
        # A failing pass must not stop the others of its message; it is still claimed, so the
        # stale sweep runs it again when its lease runs out (a failed judge_pass_task is too).
        logger.exception("judge pass %s failed", judgment_id)
        return "error"
    finally:
        # This green (or OS) thread's connection back to the pool: the task's own thread is
        # the only one Celery closes.
        connection.close()
    if outcome.state == "retry":
        return _pass_again(judgment_id, outcome.retry_in)
    return outcome.state


def _pass_again(judgment_id: int, delay: float) -> str:
    # A broker that is down is logged by task_publish; the pass, pending with a lease, is then
    # enqueued again by the stale sweep.
    task_publish(judge_pass_task, judgment_id, countdown=delay)
    return "retry"


def pass_groups(ids: list[int]) -> list[list[int]]:
    """The passes in messages of JUDGE_PASSES_PER_TASK (1: a judge_pass_task each)."""
    size = max(1, settings.JUDGE_PASSES_PER_TASK)
    return [ids[start : start + size] for start in range(0, len(ids), size)]


def judge_passes_publish(ids: list[int]) -> int:
    """Publish passes in groups of JUDGE_PASSES_PER_TASK; how many were published. Stops at the
    first failure, as tasks_publish_each does: the sweep finds the rest."""
    if settings.JUDGE_PASSES_PER_TASK <= 1:
        return tasks_publish_each(judge_pass_task, ids)
    published = 0
    for group in pass_groups(ids):
        if len(group) == 1:
            sent = task_publish(judge_pass_task, group[0])
        else:
            sent = task_publish(judge_passes_task, group)
        if not sent:
            break
        published += len(group)
    return published


@shared_task(
    acks_late=True,
    ignore_result=True,
    # No database connection in time (a worker's pool busy with a thousand passes): try again,
    # or the run's later passes would wait for the stale sweep.
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=10,
)
def judge_run_dispatch_task(run_id: int, after_id: int = 0) -> None:
    """Enqueue a large run's passes a bounded batch of messages at a time, then hand over to
    itself."""
    # DISPATCH_BATCH messages, however many passes each carries: a gevent worker judging
    # thousands at once would otherwise wait for the next hand-over to have work.
    batch = DISPATCH_BATCH * max(1, settings.JUDGE_PASSES_PER_TASK)
    ids = list(
        Judgment.objects.filter(run_id=run_id, status=JudgmentStatus.PENDING, pk__gt=after_id)
        .order_by("pk")
        .values_list("pk", flat=True)[:batch]
    )
    # One producer (and broker connection) for the whole batch, not one acquired per message,
    # and on Redis one pipelined round trip for them all (a broker without batches sends each
    # at once); a failure discards what was not sent, and the stale sweep enqueues it again.
    with judge_pass_task.app.producer_or_acquire() as producer, producer.batch(DISPATCH_BATCH):
        for group in pass_groups(ids):
            if len(group) == 1:
                judge_pass_task.apply_async((group[0],), producer=producer)
            else:
                judge_passes_task.apply_async((group,), producer=producer)
    if len(ids) == batch:
        judge_run_dispatch_task.delay(run_id, ids[-1])


@shared_task(ignore_result=True)
def judgment_requeue_stale_task() -> int:
    """Periodic: passes whose worker died or whose message was lost run again, once."""
    ids = judgments_stale()
    # Unpublished ones keep their new lease and come back on a later sweep.
    return judge_passes_publish(ids)


@shared_task(ignore_result=True)
def sessions_judge_idle_task() -> int:
    """Periodic: judge sessions gone quiet, a bounded batch per rubric; again while more wait.

    Idempotent through the rubric's cursor, moved in the transaction that starts the run."""
    judged, more = sessions_judge_idle()
    if more:
        sessions_judge_idle_task.delay()
    return judged


@shared_task(bind=True, acks_late=True, max_retries=20, ignore_result=True)
def judge_batch_submit_task(self, run_id: int) -> None:
    """Submit a run's pending passes to the Message Batches API, one batch per call."""
    try:
        batch_id, more = judge_run_batch_submit(run_id)
    except ProviderTransientError as exc:
        raise self.retry(countdown=settings.JUDGE_BATCH_POLL_SECONDS, exc=exc) from exc
    if batch_id:
        poll = settings.JUDGE_BATCH_POLL_SECONDS
        judge_batch_collect_task.apply_async((batch_id,), countdown=poll)
    if more:
        judge_batch_submit_task.delay(run_id)


@shared_task(bind=True, acks_late=True, max_retries=None, ignore_result=True)
def judge_batch_collect_task(self, batch_id: str) -> None:
    """Poll a submitted batch until it has ended, then store its results."""
    try:
        retry_live = judge_batch_collect(batch_id)
    except ProviderTransientError as exc:
        raise self.retry(countdown=settings.JUDGE_BATCH_POLL_SECONDS, exc=exc) from exc
    if retry_live is None:
        raise self.retry(countdown=settings.JUDGE_BATCH_POLL_SECONDS)
    for judgment_id in retry_live:
        judge_pass_task.delay(judgment_id)


@shared_task(
    acks_late=True,
    ignore_result=True,
    autoretry_for=(ProviderTransientError,),
    retry_backoff=True,
    max_retries=3,
)
def trace_task_type_classify_task(trace_id: int) -> str:
    """The LLM classifier types a trace no attribute or rule typed (a correction still wins);
    the rubrics of that type then judge it online."""
    trace = Trace.objects.filter(pk=trace_id).first()
    if trace is None:
        return ""
    task_type = trace_task_type_assign(trace)
    if task_type:
        trace_judge_online(trace, task_typed_only=True)
    return task_type
