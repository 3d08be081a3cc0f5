"""Start a pairwise run: each pair judged twice, the second pass with the order swapped.

The passes are ordinary judge passes (judges.execution): the same claim, lease, rate limit,
retries, request cache and Celery tasks; only the prompt (both trajectories) and the
reconciliation (judges.pairwise_verdicts) differ.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from core.errors import ApplicationError
from core.publish import task_publish
from judges.calibration import judge_calibration_get
from judges.models import (
    JudgeConfig,
    JudgeRun,
    JudgeRunScope,
    JudgeRunStatus,
    Judgment,
    JudgmentStatus,
    RubricVersion,
    RubricVersionStatus,
    ScoreType,
)

# Both orders, whatever the config's pass count: the swap is what measures position bias.
PAIRWISE_PASSES = 2
CREATE_BATCH = 1000
DIRECT_ENQUEUE_LIMIT = 200


def pairwise_run_start(
    *,
    rubric_version: RubricVersion,
    config: JudgeConfig,
    pairs: Iterable[tuple[int, int]],
    user=None,
) -> JudgeRun:
    """A run over (trace id, pair trace id) pairs, enqueued once the transaction commits. A
    pair given twice is judged once."""
    if rubric_version.score_type != ScoreType.PAIRWISE:
        raise ApplicationError(
            f"{rubric_version} is not a pairwise rubric; it judges one trace at a time.",
            field="rubric_version",
        )
    if config.temperature != 0:
        raise ApplicationError("Judges run at temperature 0.", field="config")
    if rubric_version.status == RubricVersionStatus.DRAFT:
        raise ApplicationError("Approve this draft before judging with it.", field="rubric_version")
    unique = list(dict.fromkeys((int(a), int(b)) for a, b in pairs))
    if any(a == b for a, b in unique):
        raise ApplicationError("A pair compares two different traces.", field="pairs")
    if not unique:
        raise ApplicationError("No pairs to judge: the selection is empty.", field="pairs")
    with transaction.atomic():
        run = JudgeRun.objects.create(
            rubric_version=rubric_version,
            config=config,
            status=JudgeRunStatus.RUNNING,
            scope=JudgeRunScope.PAIR,
            trace_count=len(unique),
            created_by=user,
        )
        rows = [
            Judgment(
                trace_id=trace_id,
                pair_trace_id=pair_trace_id,
                rubric_version=rubric_version,
                config=config,
                run=run,
                pass_index=index,
            )
            for trace_id, pair_trace_id in unique
            for index in range(PAIRWISE_PASSES)
        ]
        Judgment.objects.bulk_create(rows, batch_size=CREATE_BATCH, ignore_conflicts=True)
        # Listed with the other judge versions from its first run, calibrating.
        judge_calibration_get(rubric_version, config)
        _enqueue_after_commit(run)
    return run


def _enqueue_after_commit(run: JudgeRun) -> None:
    from judges.tasks import judge_passes_publish, judge_run_dispatch_task

    if run.trace_count * PAIRWISE_PASSES > DIRECT_ENQUEUE_LIMIT:
        transaction.on_commit(lambda: task_publish(judge_run_dispatch_task, run.pk))
        return
    ids = list(
        Judgment.objects.filter(run=run, status=JudgmentStatus.PENDING).values_list("pk", flat=True)
    )
    transaction.on_commit(lambda: judge_passes_publish(ids))
