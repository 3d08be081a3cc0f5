"""Each chart kept as per-day aggregates gives, after new rows and rows changed in place, what
reading everything again gives: on random data, old days and new ones, undone answers and
red flags checked again."""

import datetime as dt
import random

import pytest
from django.utils import timezone

from guardrails.models import GuardrailDecision
from insights.agreement import judge_human_chart
from insights.cost import judge_cost_chart
from insights.feedback import feedback_chart
from insights.flips import flip_rate_chart
from insights.overview import overview_daily_store
from insights.queue import annotator_chart, queue_flow_chart
from insights.scores import red_flag_chart, score_distribution_chart
from insights.steps import component_accuracy_chart, compound_error_chart
from metrics.models import RedFlag, RedFlagCheck
from reviews.models import Annotation, Queue, ReviewItem, ReviewReason, ReviewStatus
from tests.factories import (
    JudgeConfigFactory,
    JudgeRunFactory,
    JudgmentFactory,
    ProjectFactory,
    RubricFactory,
    RubricVersionFactory,
    ToolSpanFactory,
    TraceFactory,
    UserFactory,
    VerdictFactory,
)
from traces.models import Feedback, Trace

pytestmark = pytest.mark.django_db

CHARTS = {
    "flip_rate": flip_rate_chart,
    "judge_vs_people": judge_human_chart,
    "score_distribution": score_distribution_chart,
    "red_flags": red_flag_chart,
    "queue_flow": queue_flow_chart,
    "annotators": annotator_chart,
    "judge_cost": judge_cost_chart,
    "component_accuracy": component_accuracy_chart,
    "compound_error": compound_error_chart,
    "feedback": feedback_chart,
}
TOOLS = ["search_flights", "book_flight", "issue_refund"]
FLAG_KINDS = [RedFlag.Kind.HALLUCINATED_PARAMETER, RedFlag.Kind.LOOP, RedFlag.Kind.PREREQUISITE]


def backdate(model, pk: int, **stamps) -> None:
    model.objects.filter(pk=pk).update(**stamps)


class RandomWorld:
    """Traces over the last 40 days with judgments, verdicts, reviews, flags and feedback."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        config = JudgeConfigFactory(name="default", model="claude-sonnet-4-5")
        binary = RubricVersionFactory(rubric=RubricFactory(name="Refund policy"))
        ordinal = RubricVersionFactory(rubric=RubricFactory(name="Outcome 1-5"), one_to_five=True)
        self.runs = [
            (JudgeRunFactory(rubric_version=binary, config=config), (0.0, 1.0)),
            (JudgeRunFactory(rubric_version=ordinal, config=config), (1.0, 2.0, 3.0, 4.0, 5.0)),
        ]
        self.people = [UserFactory(username=f"person-{i}", roles=["annotator"]) for i in range(4)]
        self.queues = [
            Queue.objects.get_or_create(name="Default")[0],
            Queue.objects.get_or_create(name="Calibration", defaults={"blind": True})[0],
        ]
        self.project = ProjectFactory()

    def when(self, days_ago: int) -> dt.datetime:
        return timezone.now() - dt.timedelta(days=days_ago, minutes=self.rng.randrange(0, 600))

    def traces(self, n: int, oldest: int) -> None:
        for _ in range(n):
            self.trace(self.when(self.rng.randrange(0, oldest + 1)))

    def trace(self, at: dt.datetime) -> Trace:
        rng = self.rng
        trace = TraceFactory(project=self.project, started_at=at, ended_at=at)
        backdate(Trace, trace.pk, created_at=at)
        spans = [
            ToolSpanFactory(
                trace=trace,
                name=tool,
                component=f"tool:{tool}",
                started_at=at,
                position=step,
                status="error" if rng.random() < 0.1 else "ok",
            )
            for step, tool in enumerate(rng.sample(TOOLS, rng.randint(1, 3)))
        ]
        for run, scale in self.runs:
            scores = [rng.choice(scale), rng.choice(scale)]
            for index, score in enumerate(scores):
                JudgmentFactory(
                    trace=trace,
                    run=run,
                    pass_index=index,
                    score=score,
                    completed_at=at,
                    input_tokens=1000,
                    cost_usd="0.005",
                )
            agreed = scores[0] == scores[1]
            verdict = VerdictFactory(
                trace=trace,
                run=run,
                status="agreed" if agreed else "disputed",
                score=scores[0] if agreed else rng.choice((None, scores[0])),
            )
            if rng.random() < 0.6:
                self.review(trace, verdict, run.rubric_version, scale, at)
        for _ in range(rng.choice((0, 0, 1, 2))):
            RedFlag.objects.create(trace=trace, span=rng.choice(spans), kind=rng.choice(FLAG_KINDS))
        RedFlagCheck.objects.create(trace=trace, checked_at=at)
        if rng.random() < 0.3:
            GuardrailDecision.objects.create(
                project=self.project,
                trace_external_id=trace.external_id,
                decision=rng.choice(list(GuardrailDecision.Decision.values)),
                blocked_by=rng.choice(FLAG_KINDS),
            )
        if rng.random() < 0.5:
            kind, value = rng.choice((("thumbs", 1.0), ("thumbs", 0.0), ("number", 4.0)))
            feedback = Feedback.objects.create(trace=trace, kind=kind, value=value, key="user")
            backdate(Feedback, feedback.pk, created_at=at + dt.timedelta(minutes=5))
        return trace

    def review(self, trace, verdict, version, scale, at) -> None:
        rng = self.rng
        resolved = rng.random() < 0.8
        human = rng.choice(scale)
        blind = rng.random() < 0.3
        item = ReviewItem.objects.create(
            queue=self.queues[blind],
            trace=trace,
            verdict=verdict,
            rubric_version=version,
            reason=ReviewReason.AUDIT_SAMPLE,
            status=ReviewStatus.RESOLVED if resolved else ReviewStatus.OPEN,
            resolved_score=human if resolved else None,
            resolved_at=(
                min(at + dt.timedelta(hours=rng.randrange(1, 30)), timezone.now())
                if resolved
                else None
            ),
        )
        backdate(ReviewItem, item.pk, created_at=at)
        for person in rng.sample(self.people, rng.choice((1, 2, 3))):
            score = human if rng.random() < 0.7 else rng.choice(scale)
            answer = Annotation.objects.create(
                item=item, annotator=person, score=score, blind=blind
            )
            made = at + dt.timedelta(hours=rng.randrange(0, 48))
            backdate(Annotation, answer.pk, created_at=min(made, timezone.now()))

    def changes(self) -> None:
        """What happens between two rebuilds: new traffic, late rows for old days, undone
        answers and red flags checked again (finding fewer)."""
        rng = self.rng
        self.traces(6, oldest=0)
        self.traces(4, oldest=30)
        for answer in rng.sample(list(Annotation.objects.filter(undone_at__isnull=True)), 5):
            backdate(Annotation, answer.pk, undone_at=timezone.now())
        for check in rng.sample(
            list(RedFlagCheck.objects.filter(trace__red_flags__isnull=False)), 3
        ):
            RedFlag.objects.filter(trace_id=check.trace_id).delete()
            backdate(RedFlagCheck, check.pk, checked_at=timezone.now())


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("key", sorted(CHARTS))
def test_the_chart_from_stored_days_equals_a_full_read(key, seed):
    # given a chart built once from random data over 40 days, its days stored
    world = RandomWorld(seed)
    world.traces(30, oldest=40)
    chart = CHARTS[key]
    store = overview_daily_store()
    first = chart(store)
    assert first.rows == chart().rows
    # when new and late rows arrive and old ones change in place
    world.changes()
    # then the rebuild from the stored days shows what reading everything shows
    incremental, full = chart(store).as_dict(), chart().as_dict()
    assert incremental == full
    assert incremental["rows"] != first.rows  # the changes did reach the chart


def test_the_agreement_interval_is_the_full_computation_not_an_approximation():
    # given labels made on many days, the chart built incrementally after more arrive
    world = RandomWorld(3)
    world.traces(30, oldest=40)
    store = overview_daily_store()
    judge_human_chart(store)
    world.changes()
    # then each group's kappa interval is the very one the full read computes
    incremental = judge_human_chart(store).tables
    full = judge_human_chart().tables
    assert [t["kappa_low"] for t in incremental] == [t["kappa_low"] for t in full]
    assert any(t["kappa_low"] is not None for t in full)


def test_an_unchanged_matrix_keeps_its_interval_without_drawing_again(monkeypatch):
    # given the chart built once from stored days
    RandomWorld(4).traces(20, oldest=30)
    store = overview_daily_store()
    first = judge_human_chart(store).tables

    # when it is built again with nothing new, and drawing an interval would fail
    def no_draw(*args, **kwargs):
        raise AssertionError("an interval was drawn again")

    monkeypatch.setattr("core.stats.kappa_bootstrap_interval_of_confusion", no_draw)
    # then every interval is the one drawn before
    assert judge_human_chart(store).tables == first
    with pytest.raises(AssertionError, match="drawn again"):
        judge_human_chart()
