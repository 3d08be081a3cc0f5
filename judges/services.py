"""Writes for judging: start and cancel runs, judge new traces online, mark verdicts stale.

A pass itself runs in judges.execution; reconciliation lives in judges.reconcile.
"""

import random
from collections.abc import Iterable

from django.conf import settings
from django.db import transaction
from django.db.models import F, OuterRef, QuerySet, Subquery
from django.utils import timezone

from core.errors import ApplicationError
from core.publish import task_publish
from judges.calibration import judge_version_approved_for_online
from judges.models import (
    JudgeConfig,
    JudgeRun,
    JudgeRunScope,
    JudgeRunStatus,
    Judgment,
    JudgmentStatus,
    OnlineOutcome,
    Rubric,
    RubricVersion,
    RubricVersionStatus,
    ScoreType,
)
from judges.online_health import (
    OnlineDecision,
    online_decisions_record,
    online_rule_over_limit,
    provider_health,
)
from judges.sql import late_verdicts_stale_set, verdicts_stale_set
from traces.models import Session, Span, SpanKind, Trace

DEFAULT_CONFIG_NAME = "default"
CREATE_BATCH = 1000
# Runs this small are enqueued directly; larger ones by a task that fans out in batches.
DIRECT_ENQUEUE_LIMIT = 200


def _trace_ids(traces: QuerySet | Iterable) -> list[int]:
    if isinstance(traces, QuerySet):
        return list(traces.values_list("pk", flat=True))
    return [trace if isinstance(trace, int) else trace.pk for trace in traces]


def _judgments_create(
    run: JudgeRun, trace_ids: list[int], session_of: dict[int, int] | None = None
) -> None:
    passes = range(run.config.passes)
    session_of = session_of or {}
    rows = [
        Judgment(
            trace_id=trace_id,
            session_id=session_of.get(trace_id),
            rubric_version_id=run.rubric_version_id,
            config_id=run.config_id,
            run=run,
            pass_index=index,
        )
        for trace_id in trace_ids
        for index in passes
    ]
    # The unique (trace, version, config, run, pass) key makes a repeated call a no-op.
    Judgment.objects.bulk_create(rows, batch_size=CREATE_BATCH, ignore_conflicts=True)


def _enqueue_after_commit(run: JudgeRun, trace_ids: list[int] | None = None) -> None:
    from judges.tasks import judge_batch_submit_task, judge_passes_publish, judge_run_dispatch_task

    if run.config.use_batch_api and not run.online:
        transaction.on_commit(lambda: task_publish(judge_batch_submit_task, run.pk))
        return
    pending = Judgment.objects.filter(run=run, status=JudgmentStatus.PENDING)
    if trace_ids is not None:
        pending = pending.filter(trace_id__in=trace_ids)
    if trace_ids is not None or run.trace_count * run.config.passes <= DIRECT_ENQUEUE_LIMIT:
        ids = list(pending.values_list("pk", flat=True))
        transaction.on_commit(lambda: judge_passes_publish(ids))
    else:
        transaction.on_commit(lambda: task_publish(judge_run_dispatch_task, run.pk))


def judge_run_start(
    *,
    rubric_version: RubricVersion,
    config: JudgeConfig,
    traces,
    user=None,
    sample_rate: float = 1.0,
    trace_filter: dict | None = None,
    sessions=None,
    online: bool = False,
) -> JudgeRun:
    """Create a run over the traces (optionally a random sample) and enqueue one task per pass
    once the transaction commits. With `sessions` (ids), each session is judged as one
    conversation instead: its passes read all its traces and it gets one verdict."""
    if not 0 < sample_rate <= 1:
        raise ApplicationError("Sample rate must be above 0 and at most 1.", field="sample_rate")
    if config.temperature != 0:
        raise ApplicationError("Judges run at temperature 0.", field="config")
    if rubric_version.status == RubricVersionStatus.DRAFT:
        # A draft is only ever previewed; it scores nothing until a person approves it.
        raise ApplicationError("Approve this draft before judging with it.", field="rubric_version")
    if rubric_version.score_type == ScoreType.PAIRWISE:
        raise ApplicationError(
            "A pairwise rubric compares two trajectories: send pairs to a pairwise queue.",
            field="rubric_version",
        )
    session_of: dict[int, int] = {}
    if sessions is not None:
        session_of = session_anchor_traces(sessions)
        trace_ids = list(session_of)
    else:
        trace_ids = _trace_ids(traces)
    if sample_rate < 1:
        trace_ids = [pk for pk in trace_ids if random.random() < sample_rate]
    if not trace_ids:
        field = "sessions" if sessions is not None else "traces"
        raise ApplicationError(f"No {field} to judge: the selection is empty.", field=field)
    with transaction.atomic():
        run = JudgeRun.objects.create(
            rubric_version=rubric_version,
            config=config,
            status=JudgeRunStatus.RUNNING,
            sample_rate=sample_rate,
            trace_filter=trace_filter or {},
            trace_count=len(trace_ids),
            scope=JudgeRunScope.SESSION if sessions is not None else JudgeRunScope.TRACE,
            online=online,
            created_by=user,
        )
        _judgments_create(run, trace_ids, session_of)
        _enqueue_after_commit(run)
    return run


def session_anchor_traces(session_ids) -> dict[int, int]:
    """{last trace id: session id} for sessions with traces: a session pass is stored on the
    trace its conversation ends on, so pages that show traces can show it."""
    last_trace = (
        Trace.objects.filter(session=OuterRef("pk"))
        .order_by(F("started_at").desc(nulls_last=True), "-pk")
        .values("pk")[:1]
    )
    rows = (
        Session.objects.filter(pk__in=list(session_ids))
        .annotate(last=Subquery(last_trace))
        .order_by("pk")
        .values_list("pk", "last")
    )
    return {last: session_pk for session_pk, last in rows if last is not None}


def judge_run_cancel(*, run: JudgeRun, user=None) -> JudgeRun:
    """Stop a run: passes not yet started are cancelled; calls in flight finish and count."""
    with transaction.atomic():
        changed = JudgeRun.objects.filter(
            pk=run.pk, status__in=(JudgeRunStatus.PENDING, JudgeRunStatus.RUNNING)
        ).update(status=JudgeRunStatus.CANCELLED, finished_at=timezone.now())
        if not changed:
            message = f"The run is already {run.status}."
            raise ApplicationError(message, field="status", code="state")
        Judgment.objects.filter(run=run, status=JudgmentStatus.PENDING).update(
            status=JudgmentStatus.CANCELLED, completed_at=timezone.now()
        )
    run.refresh_from_db()
    return run


def judge_config_default() -> JudgeConfig:
    """The config named "default" (the seed migration creates it)."""
    config, _ = JudgeConfig.objects.get_or_create(
        name=DEFAULT_CONFIG_NAME, defaults={"model": settings.JUDGE_MODEL, "passes": 2}
    )
    return config


def _online_run(version: RubricVersion, config: JudgeConfig) -> JudgeRun:
    run = (
        JudgeRun.objects.select_for_update()
        .filter(
            rubric_version=version,
            config=config,
            online=True,
            scope=JudgeRunScope.TRACE,
            status=JudgeRunStatus.RUNNING,
        )
        .first()
    )
    if run is None:
        run = JudgeRun.objects.create(
            rubric_version=version, config=config, online=True, status=JudgeRunStatus.RUNNING
        )
    return run


def _trace_task_type(trace: Trace, classify_later: bool) -> str:
    from judges.adaptive_rubrics.task_types import trace_task_type_assign

    # Attribute and curator rules only: the LLM classifier is too slow for this path.
    decided = trace_task_type_assign(trace, classify=False)
    if not decided and classify_later:
        from judges.tasks import trace_task_type_classify_task

        trace_id = trace.pk
        transaction.on_commit(lambda: task_publish(trace_task_type_classify_task, trace_id))
    return decided


def trace_judge_online(trace: Trace, *, task_typed_only: bool = False) -> list[JudgeRun]:
    """Judge a completed trace with every rubric set to judge new traces, at its sample rate.

    Each rubric's newest approved version judges it, in that version's standing online run.
    A trace no rule types is classified by the judge in a task, which then calls this again
    with task_typed_only for the rubrics of the type it found. Every rule's decision, judged
    or the reason it was not, is recorded (judges.online_health).
    """
    rubrics = Rubric.objects.filter(judge_new_traces=True).order_by("pk")
    if task_typed_only:
        rubrics = rubrics.exclude(task_type="")
    runs = []
    decisions: list[OnlineDecision] = []
    now = timezone.now()
    config = None
    task_type = None  # decided once, for the first rubric that asks
    nothing = _nothing_to_judge(trace)
    for rubric in rubrics:
        if rubric.project_id and rubric.project_id != trace.project_id:
            continue
        if nothing:
            decisions.append(OnlineDecision(rubric, OnlineOutcome.NOTHING_TO_JUDGE, ""))
            continue
        # A task-type rubric judges only traces of its type.
        if rubric.task_type:
            if task_type is None:
                task_type = _trace_task_type(trace, not task_typed_only)
            if not task_type and not task_typed_only:
                continue  # the classifier task decides, then calls again
            if rubric.task_type != task_type:
                decisions.append(OnlineDecision(rubric, OnlineOutcome.OTHER_TASK_TYPE, task_type))
                continue
        version = (
            rubric.versions.filter(status=RubricVersionStatus.APPROVED).order_by("-number").first()
        )
        outcome = _online_skip_reason(rubric, version, trace, now)
        if outcome is None:
            config = config or judge_config_default()
            outcome = _online_config_skip_reason(version, config, now)
        if outcome is not None:
            decisions.append(OnlineDecision(rubric, outcome, task_type or ""))
            continue
        with transaction.atomic():
            run = _online_run(version, config)
            if Judgment.objects.filter(run=run, trace=trace).exists():
                continue
            _judgments_create(run, [trace.pk])
            JudgeRun.objects.filter(pk=run.pk).update(trace_count=F("trace_count") + 1)
            _enqueue_after_commit(run, [trace.pk])
        decisions.append(OnlineDecision(rubric, OnlineOutcome.JUDGED, task_type or ""))
        runs.append(run)
    online_decisions_record(trace, decisions, now)
    return runs


def _nothing_to_judge(trace: Trace) -> bool:
    """A trace with no agent's work in it: no task, no answer, no model or tool call (a
    framework's span for building its graph, a web request an app's own instrumentation
    traced). Judging it online would pay for a verdict on nothing."""
    if trace.task or trace.final_answer or trace.model:
        return False
    return not Span.objects.filter(trace=trace, kind__in=(SpanKind.LLM, SpanKind.TOOL)).exists()


def _online_skip_reason(rubric: Rubric, version, trace: Trace, now) -> str | None:
    if version is None:
        return OnlineOutcome.NO_APPROVED_VERSION
    if random.random() >= rubric.sample_rate:
        return OnlineOutcome.NOT_SAMPLED
    if online_rule_over_limit(rubric, trace.project_id, now):
        return OnlineOutcome.OVER_LIMIT
    return None


def _online_config_skip_reason(version: RubricVersion, config: JudgeConfig, now) -> str | None:
    # Live traffic is judged only by versions whose agreement with people was measured.
    before_calibration = settings.JUDGE_ONLINE_BEFORE_CALIBRATION
    if not before_calibration and not judge_version_approved_for_online(version, config):
        return OnlineOutcome.NOT_CALIBRATED
    if provider_health.failing(config, now):
        return OnlineOutcome.PROVIDER_FAILING
    return None


def verdicts_mark_stale(
    trace_ids: Iterable[int], session_ids: Iterable[int] | None = None
) -> list[int]:
    """Spans arrived after judging: the verdicts on those traces no longer saw the whole trace,
    nor did the verdicts on their sessions (a new trace or span in the conversation): the given
    sessions, else the traces' own. Returns which of the traces had their red flags checked."""
    trace_ids = list(trace_ids)
    if session_ids is None:
        session_ids = Trace.objects.filter(pk__in=trace_ids, session__isnull=False).values_list(
            "session_id", flat=True
        )
    session_ids = list(session_ids)
    if not (trace_ids or session_ids):
        return []
    if not trace_ids:  # sessions only: no trace whose red flags to check again
        verdicts_stale_set(trace_ids, session_ids)
        return []
    return late_verdicts_stale_set(trace_ids, session_ids)
