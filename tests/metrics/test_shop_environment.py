"""The shop environment, small: runs sent as transcripts and as OTLP, scored by the eval-run
path, must agree with the shop's own reward (bench/metric_quality.py measures it at size)."""

import pytest

from bench.environments.figures import figures_compute
from bench.environments.shop import agent, pipeline, tasks, world

pytestmark = pytest.mark.django_db


def _small_run_set():
    """One task of each family: a correct run, then one run per failure that can happen."""
    base = world.world_create()
    chosen = {}
    for task in tasks.tasks_create(base):
        chosen.setdefault(task.family, task)
    runs = []
    for number, task in enumerate(chosen.values()):
        kinds = [""] + sorted(set(agent.failures_for(task)))
        for trial, failure in enumerate(kinds):
            runs.append(agent.run_episode(task, base, trial, failure, seed=1000 * number + trial))
    return list(chosen.values()), runs


def test_the_shop_decides_rewards_from_its_database():
    # given the small run set
    _tasks, runs = _small_run_set()
    # then correct runs end in the expected state, and every injected failure kind is there
    assert all(run.reward for run in runs if not run.failure)
    assert {run.failure for run in runs if run.failure} == set(agent.FAILURES)
    assert sum(not run.reward for run in runs) >= len(agent.FAILURES)


def test_pass_rule_and_red_flags_agree_with_the_reward_both_ways_in():
    # given the runs sent through evalsite as transcripts and as OTLP spans
    shop_tasks, runs = _small_run_set()
    results = pipeline.evaluate(shop_tasks, runs, label="shop-test")
    for way, trials in results.items():
        # then every failed run fails the pass rule, with a reason
        for trial in trials:
            if not trial.run.reward:
                assert trial.passed is False, (way, trial.run.task.key, trial.run.failure)
                assert trial.metrics["fail_reasons"]
            elif "terse_answer" not in trial.run.variations:
                assert trial.passed is True, (way, trial.run.task.key, trial.metrics)
        figures = figures_compute(trials)
        # and no successful run carries a red flag, while every failure kind is caught
        assert figures.flagged_successes == 0.0, way
        assert all(failed == n for n, _lost, failed, _f in figures.failures.values()), way
        assert figures.auc["pass rule"][0] == 1.0
    # and both ways in give each run the same verdict
    verdicts = {
        way: [(t.run.task.key, t.run.trial, t.passed) for t in trials]
        for way, trials in results.items()
    }
    assert verdicts["transcript"] == verdicts["otlp"]
