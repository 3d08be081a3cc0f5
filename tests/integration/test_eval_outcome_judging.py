"""Outcome scores from real judge verdicts: eval_run_judge, a Celery worker, the simulated judge."""

import pytest
from django.core.management import call_command

from golden.evals.scoring import ScoringOptions, eval_run_score
from golden.evals.services import eval_run_create
from judges.models import Rubric, Verdict, VerdictStatus
from tests.evals.golden_set import (
    EXAMPLES,
    agent_run_traces,
    golden_version_create,
)
from tests.integration.conftest import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_outcome_score_comes_from_the_outcome_rubric_verdicts(celery_worker):
    # given examples judged by the seeded "Outcome 1-5" rubric and a run of the faithful agent
    rubric = Rubric.objects.get(name="Outcome 1-5")
    dataset = golden_version_create(outcome_rubric=rubric)
    run = eval_run_create(name="ci-900", agent_version="1.4.0", dataset_version=dataset)
    agent_run_traces("1.4.0", "ci-900")
    # when its outcomes are judged through the worker and the run is scored
    call_command("eval_run_judge", "ci-900")
    wait_for(
        lambda: Verdict.objects.filter(rubric_version__rubric=rubric).count() == len(EXAMPLES),
        timeout=90,
        message="outcome verdicts did not land",
    )
    metrics = eval_run_score(run, ScoringOptions())
    # then every trial with an agreed verdict takes its outcome from it, scaled 1..5 -> 0..1
    for trial in run.trials.select_related("trace"):
        verdict = Verdict.objects.get(trace=trial.trace, rubric_version__rubric=rubric)
        if verdict.status == VerdictStatus.AGREED:
            assert trial.metrics["outcome_source"] == "verdict"
            assert trial.metrics["outcome_score"] == pytest.approx((verdict.score - 1) / 4)
        else:
            assert trial.metrics["outcome_source"] == "expected_facts"
    sources = [t.metrics["outcome_source"] for t in run.trials.all()]
    assert sources.count("verdict") >= 1, sources
    assert metrics["overall"]["outcome_score"] is not None
