"""What judges' rows mean for trace retention (traces/retention.py): verdicts, red flags and
task-type assignments go with their trace; a judgment does too, except while its judge run is
still at work, when it keeps the trace (and its session) until the run ends."""

from judges.models import JudgeRunStatus, Judgment
from metrics.models import RedFlag
from traces.retention import (
    session_keeper_add,
    session_relation_owned,
    span_dependents_add,
    trace_keeper_add,
    trace_relation_owned,
)

RUN_AT_WORK = (JudgeRunStatus.PENDING, JudgeRunStatus.RUNNING)


def _judgments_at_work():
    return Judgment._base_manager.filter(run__status__in=RUN_AT_WORK)


def retention_declare() -> None:
    for relation in (
        "judgments",
        "verdicts",
        "red_flags",
        "red_flag_check",
        "task_type_assignment",
        "online_decisions",
    ):
        trace_relation_owned(relation)
    trace_keeper_add("judgments", _judgments_at_work, via="trace", label="a judge run at work")
    for relation in ("judgments", "verdicts"):
        session_relation_owned(relation)
    session_keeper_add(
        "judgments",
        _judgments_at_work,
        via="session",
        label="a judge run at work on its session",
    )
    span_dependents_add(
        "red_flags", lambda trace_ids: RedFlag._base_manager.filter(span__trace_id__in=trace_ids)
    )
