"""What keeps an expired trace from going: each makes one such hold on the trace it is given."""

from golden.evals.services import eval_run_create
from golden.models import EvalTrial, GoldenExample
from golden.services import dataset_version_create
from judges.models import JudgeRunStatus
from tests.factories import (
    GoldenExampleFactory,
    JudgeRunFactory,
    JudgmentFactory,
    ReviewItemFactory,
)


def golden_source(trace):
    GoldenExampleFactory(source_trace=trace)


def under_review(trace):
    ReviewItemFactory(trace=trace, status="resolved")


def eval_trial(trace):
    GoldenExampleFactory()
    dataset = dataset_version_create(name="retention", examples=GoldenExample.objects.all())
    run = eval_run_create(name="ret-1", agent_version="1.0", dataset_version=dataset)
    EvalTrial.objects.create(eval_run=run, entry=dataset.entries.get(), trace=trace)


def being_judged(trace):
    JudgmentFactory(trace=trace, run=JudgeRunFactory(status=JudgeRunStatus.RUNNING))
