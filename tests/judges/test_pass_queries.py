"""The queries of one judge pass are pinned: judging throughput is bounded by worker CPU, and
most of a pass's CPU is the ORM building and reading queries."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from judges.calibration import judge_calibration_update
from judges.execution import judgment_execute
from judges.models import JudgeRunStatus, Judgment, JudgmentStatus, Verdict, VerdictStatus
from judges.pass_rows import judgment_claim
from judges.services import judge_run_start
from metrics.models import RedFlagCheck
from metrics.redflag_store import red_flags_check
from reviews.services import queue_for_rubric
from tests.judges import sample_traces

pytestmark = pytest.mark.django_db

# claim and load the pass (one statement on PostgreSQL, an UPDATE then a SELECT elsewhere),
# its spans, the request cache, lock the trace's passes, store.
CLAIM_QUERIES = 1 if connection.vendor == "postgresql" else 2
PASS_QUERIES = CLAIM_QUERIES + 4
# The last pass also writes the verdict: look for one, the red-flag check (is it stored, lock
# the trace, stored meanwhile?, the project's policy, which the process then remembers for
# seconds, clear, mark checked), the verdict, the calibration and audit hand-offs
# (calibration state, which ends it for an approved version; queue), finish the run if done.
LAST_PASS_QUERIES = PASS_QUERIES + 11
# A trace whose red flags were checked when it completed: is it stored, read them.
LAST_PASS_CHECKED_QUERIES = PASS_QUERIES + 7


def _statements(captured) -> list[str]:
    # Savepoints depend on how deep the test's own transaction nests; they are not queries.
    return [
        q["sql"] for q in captured if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))
    ]


@pytest.fixture
def approved(tool_rubric, default_config):
    """Steady state: the judge version passed calibration, and the default queue exists."""
    judge_calibration_update(tool_rubric, default_config, [(1, 1), (0, 0)] * 15)
    queue_for_rubric(None)


def _passes(version, config, trace, capture):
    with capture(execute=False):
        run = judge_run_start(rubric_version=version, config=config, traces=[trace])
    return run, list(run.judgments.order_by("pass_index"))


def _queries_of(judgment_id: int) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        outcome = judgment_execute(judgment_id)
    assert outcome.state == "done"
    return _statements(captured.captured_queries)


def test_a_pass_and_the_pass_that_writes_the_verdict_take_a_fixed_number_of_queries(
    simulator, tool_rubric, default_config, capture, approved
):
    trace = sample_traces.support_cancel_ok()
    run, (first, last) = _passes(tool_rubric, default_config, trace, capture)
    judgment_execute(first.pk)  # the first call of a process loads the rubric version once

    second_run, (second_first, second_last) = _passes(
        tool_rubric, default_config, sample_traces.travel_book_ok(), capture
    )
    first_queries = _queries_of(second_first.pk)
    last_queries = _queries_of(second_last.pk)

    assert len(first_queries) == PASS_QUERIES, "\n".join(first_queries)
    assert len(last_queries) == LAST_PASS_QUERIES, "\n".join(last_queries)
    verdict = Verdict.objects.get(run=second_run)
    assert verdict.status == VerdictStatus.AGREED
    assert RedFlagCheck.objects.filter(trace_id=verdict.trace_id).count() == 1


def test_a_trace_checked_at_completion_is_not_checked_again(
    simulator, tool_rubric, default_config, capture, approved
):
    trace = sample_traces.travel_search_loop()
    red_flags_check(trace)
    run, (first, last) = _passes(tool_rubric, default_config, trace, capture)
    judgment_execute(first.pk)

    last_queries = _queries_of(last.pk)

    assert len(last_queries) == LAST_PASS_CHECKED_QUERIES, "\n".join(last_queries)
    assert not any("FOR UPDATE" in q and "traces_trace" in q for q in last_queries)
    assert Verdict.objects.filter(run=run).exists()


def test_the_claim_takes_a_pending_pass_or_an_expired_lease_and_nothing_else(
    tool_rubric, default_config, capture
):
    run, (pending, running) = _passes(
        tool_rubric, default_config, sample_traces.support_cancel_ok(), capture
    )
    past, future = timezone.now() - timedelta(minutes=1), timezone.now() + timedelta(minutes=5)
    Judgment.objects.filter(pk=running.pk).update(status=JudgmentStatus.RUNNING, lease_until=future)

    assert judgment_claim(pending.pk)
    assert not judgment_claim(pending.pk), "claimed twice"
    assert not judgment_claim(running.pk), "taken from a worker whose lease still runs"
    Judgment.objects.filter(pk=running.pk).update(lease_until=past)
    run.status = JudgeRunStatus.CANCELLED
    run.save(update_fields=["status"])
    assert not judgment_claim(running.pk), "a cancelled run's pass was taken over"
    run.status = JudgeRunStatus.RUNNING
    run.save(update_fields=["status"])
    assert judgment_claim(running.pk)
    pending.refresh_from_db()
    assert pending.status == JudgmentStatus.RUNNING and pending.lease_until > timezone.now()
