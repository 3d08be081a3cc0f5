"""Scoring eval runs: trials attached from tags, metrics per trial, task and run."""

import copy

import pytest

from golden.evals.scoring import ScoringOptions, eval_run_score
from golden.evals.services import eval_run_create
from golden.models import EvalTrial
from golden.services import dataset_version_create
from tests.evals.golden_set import (
    EXAMPLES,
    agent_payload,
    golden_version_create,
    trace_from_payload,
)
from tests.factories import GoldenExampleFactory, TraceFactory

pytestmark = pytest.mark.django_db


def _run_agent(version, run_name, dataset, trials=2, skip=()):
    run = eval_run_create(
        name=run_name,
        agent_version=version,
        agent_name="support-agent",
        dataset_version=dataset,
        trials_per_task=trials,
    )
    for example in EXAMPLES:
        for trial in range(trials):
            if (example["key"], trial) not in skip:
                trace_from_payload(agent_payload(version, example["key"], run_name, trial))
    return run


def test_faithful_agent_scores_full_marks():
    # given the 1.4.0 agent ran the golden set twice per task
    dataset = golden_version_create()
    run = _run_agent("1.4.0", "ci-101-base", dataset)
    # when
    metrics = eval_run_score(run, ScoringOptions())
    # then
    overall = metrics["overall"]
    assert metrics["attached"] == 6 and overall["trials"] == 6
    for name in (
        "outcome_score",
        "tool_selection_accuracy",
        "parameter_accuracy",
        "pass_at_k",
        "pass_hat_k",
    ):
        assert overall[name] == 1.0, name
    assert overall["red_flags"] == {} and overall["red_flag_rate"] == 0.0
    assert EvalTrial.objects.filter(eval_run=run, passed=True).count() == 6


def test_hallucinating_agent_loses_parameter_accuracy_but_not_outcome():
    # given the 1.5.0 agent cancels an order id it made up
    dataset = golden_version_create()
    run = _run_agent("1.5.0", "ci-102-cand", dataset)
    # when
    metrics = eval_run_score(run, ScoringOptions())
    # then
    overall, task = metrics["overall"], metrics["per_task"]["cancel-recent-order"]
    assert overall["outcome_score"] == 1.0 and overall["tool_selection_accuracy"] == 1.0
    # the default scores the write and the lookup its id comes from: the made-up id scores 0
    assert overall["parameter_accuracy"] == pytest.approx((0.5 * 2 + 1.0 * 4) / 6)
    assert task["parameter_accuracy"] == 0.5 and task["passed"] == 0
    assert task["pass_at_k"] == 0.0 and overall["pass_hat_k"] == pytest.approx(2 / 3)
    # the stored trace flag and the golden rule both name the cancel span: one flag a trial
    assert overall["red_flags"] == {"hallucinated_parameter": 2}
    assert overall["red_flag_rate"] == pytest.approx(2 / 6)
    trial = EvalTrial.objects.get(
        eval_run=run, entry__example_key="cancel-recent-order", trial_index=0
    )
    cancel_span = trial.trace.spans.get(tool_name="cancel_order").span_id
    assert {f["span_id"] for f in trial.metrics["red_flags"]} == {cancel_span}
    assert [f["sources"] for f in trial.metrics["red_flags"]] == [["trace", "golden"]]
    # and the component table puts the cancel tool first, then the agent that called it
    rows = {row["component"]: row for row in metrics["components"]}
    assert metrics["components"][0]["component"] == "tool:cancel_order"
    assert metrics["components"][0]["accuracy"] == 0.0
    agent = rows["agent:support-agent"]
    # writes and the lookups they take ids from bear on correctness: 6 of each scored, the 2
    # made-up cancels wrong
    assert agent["role"] == "orchestrator" and agent["scored_steps"] == 12
    assert agent["accuracy"] == pytest.approx(10 / 12)


def test_missing_trials_count_as_failures_and_foreign_traces_are_ignored():
    # given one trial of one task never arrived, and a trace tagged for another run exists
    dataset = golden_version_create()
    run = _run_agent("1.4.0", "ci-103", dataset, skip={("book-cheapest-flight", 1)})
    trace_from_payload(agent_payload("1.4.0", "book-cheapest-flight", "some-other-run", 1))
    TraceFactory(context={"evalsite.eval_run": "ci-103", "evalsite.example_key": "no-such-task"})
    # when
    metrics = eval_run_score(run, ScoringOptions())
    # then
    task = metrics["per_task"]["book-cheapest-flight"]
    assert (task["trials"], task["missing"], task["passed"]) == (1, 1, 1)
    assert task["pass_at_k"] == 1.0 and task["pass_hat_k"] == 0.0
    assert metrics["overall"]["missing_trials"] == 1
    assert metrics["unknown_example"] == 1


def test_scoring_twice_does_not_duplicate_trials():
    dataset = golden_version_create()
    run = _run_agent("1.4.0", "ci-104", dataset, trials=1)
    eval_run_score(run, ScoringOptions())
    eval_run_score(run, ScoringOptions())
    assert EvalTrial.objects.filter(eval_run=run).count() == 3


def test_undecided_parameter_goes_to_the_injected_judge():
    # given a reference with a free-text reason and an agent that words it differently
    example = copy.deepcopy(EXAMPLES[0])
    example["reference_trajectory"][1]["inputs"]["reason"] = "placed by mistake"
    GoldenExampleFactory(**example)
    dataset = dataset_version_create(name="with-reason")
    run = eval_run_create(name="ci-105", agent_version="1.4.0", dataset_version=dataset)
    payload = agent_payload("1.4.0", "cancel-recent-order", "ci-105", 0)
    payload["children"][1]["input"]["reason"] = "customer ordered it by accident"
    trace_from_payload(payload)
    asked = []

    def judge(name, expected, actual, task):
        asked.append((name, expected, actual))
        return 0.5

    # when
    metrics = eval_run_score(run, ScoringOptions(parameter_judge=judge))
    # then only the free-text parameter reached the judge (on two passes), and its 0.5 counts
    assert asked == [("reason", "placed by mistake", "customer ordered it by accident")] * 2
    # (the lookup the cancel takes its id from counts 1.0, the cancel's two parameters 0.75)
    assert metrics["overall"]["parameter_accuracy"] == pytest.approx((1.0 + 0.75) / 2)


def test_traces_without_a_trial_number_take_the_next_free_one_and_keep_it():
    # given two traces of one task that carry no evalsite.trial
    dataset = golden_version_create()
    run = eval_run_create(
        name="ci-106", agent_version="1.4.0", dataset_version=dataset, trials_per_task=2
    )
    traces = []
    for n in range(2):
        payload = agent_payload("1.4.0", "refund-damaged-item", "ci-106", n)
        del payload["context"]["evalsite.trial"]
        traces.append(trace_from_payload(payload))
    # when the run is scored twice
    eval_run_score(run, ScoringOptions())
    eval_run_score(run, ScoringOptions())
    # then each trace holds its own trial, and they did not swap
    pairs = sorted(run.trials.values_list("trial_index", "trace_id"))
    assert [i for i, _ in pairs] == [0, 1]
    assert {t for _, t in pairs} == {t.pk for t in traces}
    assert run.metrics["per_task"]["refund-damaged-item"]["trials"] == 2
