"""A small, realistic data set that every overview chart has something to draw from."""

import datetime as dt
from decimal import Decimal

from django.utils import timezone

from golden.models import DatasetVersion, DatasetVersionEntry, EvalRun, EvalTrial
from metrics.models import RedFlag
from reviews.models import Annotation, Queue, ReviewItem, ReviewReason, ReviewStatus
from tests.factories import (
    JudgeConfigFactory,
    JudgeRunFactory,
    JudgmentFactory,
    RubricFactory,
    RubricVersionFactory,
    ToolSpanFactory,
    TraceFactory,
    UserFactory,
    VerdictFactory,
)
from traces.models import Feedback

TASKS = [
    ("travel_booking", "Book the cheapest nonstop flight from Lisbon to Berlin on 14 March."),
    ("customer_support", "My order A1042 arrived damaged, I want a refund to my card."),
    ("coding_agent", "Fix the failing test test_parse_dates in utils/test_dates.py."),
]
TOOLS = {
    "travel_booking": ["search_flights", "book_flight"],
    "customer_support": ["get_order", "issue_refund"],
    "coding_agent": ["run_tests", "edit_file"],
}


def insights_world(now=None, days: int = 14):
    """Build traces, two judge versions with two passes each, reviews, flags and eval runs,
    spread over `days` days (one day is what a fresh install has)."""
    now = now or timezone.now()
    config = JudgeConfigFactory(name="default", model="claude-sonnet-4-5")
    binary = RubricVersionFactory(rubric=RubricFactory(name="Refund policy compliance"))
    ordinal = RubricVersionFactory(
        rubric=RubricFactory(name="Booking outcome 1-5"), one_to_five=True
    )
    runs = {
        binary.pk: JudgeRunFactory(rubric_version=binary, config=config),
        ordinal.pk: JudgeRunFactory(rubric_version=ordinal, config=config),
    }
    annie = UserFactory(username="priya", roles=["annotator"])
    bob = UserFactory(username="marco", roles=["annotator"])
    queue, _ = Queue.objects.get_or_create(name="Default")
    blind_queue, _ = Queue.objects.get_or_create(name="Calibration", defaults={"blind": True})
    traces = []
    for i in range(24):
        task_type, task = TASKS[i % 3]
        day = now - dt.timedelta(days=i % days)
        trace = TraceFactory(
            task=task, task_type=task_type, started_at=day, ended_at=day, agent_version="1.4.0"
        )
        traces.append(trace)
        for step, tool in enumerate(TOOLS[task_type]):
            span = ToolSpanFactory(
                trace=trace,
                name=tool,
                component=f"tool:{tool}",
                started_at=day,
                status="error" if (i % 6 == 0 and step == 1) else "ok",
                position=step,
            )
            if i % 8 == 1 and step == 1:
                RedFlag.objects.create(
                    trace=trace, span=span, kind=RedFlag.Kind.HALLUCINATED_PARAMETER
                )
        for version in (binary, ordinal):
            run = runs[version.pk]
            if version is binary:
                first = float(i % 2)
                second = 1 - first if i % 8 == 3 else first  # passes flip on 3 of 24
            else:
                first = float(1 + i % 5)
                second = first
            for pass_index, score in enumerate((first, second)):
                JudgmentFactory(
                    trace=trace,
                    run=run,
                    pass_index=pass_index,
                    score=score,
                    completed_at=day,
                    input_tokens=1200,
                    output_tokens=150,
                    cache_read_tokens=1000 if pass_index else 0,
                    cost_usd=Decimal("0.00585"),
                    served_from_cache=(i == 5 and pass_index == 1),
                )
            agreed = first == second
            verdict = VerdictFactory(
                trace=trace,
                run=run,
                status="agreed" if agreed else "disputed",
                score=first if agreed else None,
            )
            if version is binary and agreed and i < 12:
                blind = i % 4 == 0
                human = first if i % 5 else 1 - first
                item = ReviewItem.objects.create(
                    queue=blind_queue if blind else queue,
                    trace=trace,
                    verdict=verdict,
                    rubric_version=version,
                    reason=ReviewReason.CALIBRATION if blind else ReviewReason.AUDIT_SAMPLE,
                    status=ReviewStatus.RESOLVED,
                    resolved_score=human,
                    resolved_at=day + dt.timedelta(hours=3),
                )
                ReviewItem.objects.filter(pk=item.pk).update(created_at=day)
                Annotation.objects.create(item=item, annotator=annie, score=human, blind=blind)
                Annotation.objects.create(
                    item=item, annotator=bob, score=human if i % 3 else 1 - human, blind=blind
                )
    # Spread verdicts over three weeks so the weekly charts have more than one point.
    for index, trace in enumerate(traces):
        trace.verdicts.update(
            created_at=now - dt.timedelta(days=7 * (index % 3) if days > 7 else 0)
        )
    ReviewItem.objects.create(
        queue=queue, trace=traces[-1], rubric_version=binary, reason=ReviewReason.PASSES_DISAGREE
    )
    dataset = DatasetVersion.objects.create(name=f"v{binary.pk}", content_hash="0" * 64)
    for index, (version, noop, outcome) in enumerate(
        [
            ("1.4.0", True, 0.80),
            ("1.4.0", True, 0.82),
            ("1.4.0", True, 0.79),
            ("1.5.0", False, 0.70),
        ]
    ):
        run = EvalRun.objects.create(
            name=f"run {index}",
            agent_version=version,
            dataset_version=dataset,
            is_noop=noop,
            metrics={
                "overall": {
                    "outcome_score": outcome,
                    "tool_selection_accuracy": outcome + 0.1,
                    "parameter_accuracy": outcome + 0.05,
                    "pass_hat_k": outcome - 0.2,
                }
            },
        )
        EvalRun.objects.filter(pk=run.pk).update(
            created_at=now - dt.timedelta(days=10 - index if days > 10 else 0, minutes=10 - index)
        )
    # The last run asked its LLM checks twice per question; one path question flipped.
    entry = DatasetVersionEntry.objects.create(
        version=dataset, example_key="world", content={}, content_hash="0" * 64
    )
    for index, flipped in enumerate([True, False, False]):
        EvalTrial.objects.create(
            eval_run=run,
            entry=entry,
            trial_index=index,
            trace=traces[index],
            metrics={
                "llm_check_passes": [
                    {"check": "path", "scores": [1.0, 0.0 if flipped else 1.0], "flipped": flipped}
                ]
            },
        )
    for index, trace in enumerate(traces[:12]):
        feedback = Feedback.objects.create(
            trace=trace, kind="thumbs", value=float(index % 3 != 0), key=f"thumbs-{index}"
        )
        Feedback.objects.filter(pk=feedback.pk).update(
            created_at=now - dt.timedelta(days=index % days)
        )
    return {"binary": binary, "ordinal": ordinal, "config": config, "traces": traces}
