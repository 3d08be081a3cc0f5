"""The judges -> reviews seam: disputed verdicts and audit samples become queue items once."""

import pytest

from judges.models import VerdictStatus
from judges.signals import verdict_needs_review, verdict_written
from reviews.models import ReviewItem, ReviewReason
from tests.factories import QueueFactory, ToolSpanFactory, VerdictFactory

pytestmark = pytest.mark.django_db


def test_a_disputed_verdict_is_queued_once_per_reason():
    verdict = VerdictFactory()
    for _ in range(2):
        verdict_needs_review.send(
            sender=None, verdict=verdict, reasons=["passes_disagree", "red_flag"], detail="1 vs 0"
        )
    items = ReviewItem.objects.filter(trace=verdict.trace)
    assert sorted(items.values_list("reason", flat=True)) == ["passes_disagree", "red_flag"]
    assert items.first().queue.name == "Default"
    # The queue page lists and searches the task without joining traces
    assert items.first().task_excerpt == verdict.trace.task


def test_a_rubric_queue_takes_its_rubrics_items():
    verdict = VerdictFactory()
    named = QueueFactory(name="Tool calls", rubric=verdict.rubric_version.rubric)
    verdict_needs_review.send(sender=None, verdict=verdict, reasons=["unparseable"])
    assert ReviewItem.objects.get().queue == named


def test_a_project_queue_takes_items_of_rubrics_without_their_own_queue():
    verdict = VerdictFactory()
    project_queue = QueueFactory(name="Support agent", project=verdict.trace.project)
    verdict_needs_review.send(sender=None, verdict=verdict, reasons=["call_failed"])
    assert ReviewItem.objects.get().queue == project_queue


@pytest.mark.parametrize(("rate", "status", "queued"), [
    (1.0, VerdictStatus.AGREED, 1), (0.0, VerdictStatus.AGREED, 0),
    (1.0, VerdictStatus.DISPUTED, 0),
])  # fmt: skip
def test_agreed_verdicts_are_sampled_at_the_queue_audit_rate(rate, status, queued):
    verdict = VerdictFactory(status=status)
    QueueFactory(name="Audit", rubric=verdict.rubric_version.rubric, audit_sample_rate=rate)
    verdict_written.send(sender=None, verdict=verdict)
    assert ReviewItem.objects.filter(reason=ReviewReason.AUDIT_SAMPLE).count() == queued


def test_queued_items_come_with_their_trace_red_flags():
    from metrics.models import RedFlag

    verdict = VerdictFactory()
    for position in range(3):
        ToolSpanFactory(
            trace=verdict.trace,
            name="search_flights",
            input={"from": "LIS", "to": "BER", "date": "2026-03-14"},
            output={"flights": []},
            position=position,
        )
    verdict_needs_review.send(sender=None, verdict=verdict, reasons=["red_flag"])
    kinds = set(RedFlag.objects.filter(trace=verdict.trace).values_list("kind", flat=True))
    assert RedFlag.Kind.LOOP in kinds
