"""The one pass rule: path, golden rules, blocking flags, outcome and expected behaviour.

Each test shows the failing trial first, then the one that passes."""

import pytest
from evalsite_checks.pass_rule import PassCriteria, trial_decide

from golden.evals.scoring import ScoringOptions, eval_run_score
from golden.evals.services import eval_run_create
from golden.models import EvalTrial, GoldenExample
from golden.services import dataset_version_create
from reviews.models import ReviewItem, ReviewReason
from tests.evals.golden_set import EXAMPLES, agent_payload, trace_from_payload
from tests.factories import GoldenExampleFactory

CLEAN = {
    "matched": True,
    "matcher": "state",
    "parameter_accuracy": 1.0,
    "red_flags": [],
    "outcome_score": 1.0,
    "outcome_source": "expected_facts",
}
HALLUCINATION = {"kind": "hallucinated_parameter", "detail": "cancel_order(order_id='A1043')"}


def _decide(content=None, **changes):
    return trial_decide({**CLEAN, **changes}, content or {}, PassCriteria())


def test_a_golden_rule_that_fires_fails_the_trial():
    fired = _decide(red_flags=[{**HALLUCINATION, "sources": ["golden"]}])
    assert fired.passed is False
    assert fired.reasons == ["red flag hallucinated_parameter: cancel_order(order_id='A1043')"]
    assert _decide().passed is True


def test_a_rule_that_fired_on_several_calls_reads_once():
    early = {"kind": "prerequisite", "detail": "refund_order called before get_order."}
    twice = [{**early, "span_id": s, "sources": ["golden"]} for s in ("a", "b")]
    assert _decide(red_flags=twice).reasons == [
        "red flag prerequisite: refund_order called before get_order."
    ]


def test_a_generic_flag_blocks_only_where_the_example_declares_it():
    flags = [{**HALLUCINATION, "sources": ["trace"]}]
    rule = {"rule": "generic_flag", "kind": "hallucinated_parameter"}
    blocking = {"red_flags": [{"text": "No made-up ids.", "rule": rule}]}
    assert _decide(blocking, red_flags=flags).passed is False
    assert _decide({}, red_flags=flags).passed is True


def test_path_and_outcome_each_fail_a_trial_with_their_reason():
    path = _decide(matched=False, reason="unexpected write cancel_order")
    assert path.passed is False and path.reasons == ["path: unexpected write cancel_order"]
    outcome = _decide(outcome_score=0.0)
    assert outcome.passed is False and outcome.reasons[0].startswith("outcome: 0.00")


def test_expected_behaviour_counts_and_waits_for_a_verdict():
    adversarial = {"expected_behavior": "Ask which order before cancelling."}
    shown_not = _decide(adversarial, behavior_score=0.0)
    assert shown_not.passed is False and shown_not.reasons[0].startswith("behaviour:")
    undecided = _decide(adversarial, behavior_score=None)
    assert undecided.passed is None and undecided.undecided
    assert _decide(adversarial, behavior_score=1.0).passed is True


def _cancellation_run(dataset_name, run_name, version, **example_fields):
    """A dataset of the cancellation example alone, and a run of the agent version over it."""
    example = next(e for e in EXAMPLES if e["key"] == "cancel-recent-order")
    GoldenExampleFactory(**{**example, **example_fields})
    dataset = dataset_version_create(name=dataset_name, examples=GoldenExample.objects.all())
    run = eval_run_create(name=run_name, agent_version=version, dataset_version=dataset)
    return example, run


@pytest.mark.django_db
def test_scoring_stores_the_decision_and_its_reasons_per_trial():
    # given the cancellation example, whose golden rule forbids an id no lookup returned
    example, run = _cancellation_run("pass-rule", "pr-1", "1.5.0")
    # when 1.5.0 cancels an order id it made up and still reports the right order
    trace_from_payload(agent_payload("1.5.0", example["key"], "pr-1", 0))
    eval_run_score(run, ScoringOptions())
    # then the trial fails, and says why
    trial = EvalTrial.objects.get(eval_run=run)
    assert trial.passed is False
    assert any("red flag hallucinated_parameter" in r for r in trial.metrics["fail_reasons"])
    assert trial.metrics["outcome_score"] == 1.0


@pytest.mark.django_db
def test_an_adversarial_example_is_judged_and_an_unreadable_judge_goes_to_review():
    example, run = _cancellation_run(
        "adv", "adv-1", "1.4.0", expected_behavior="Confirm the order before cancelling."
    )
    trace_from_payload(agent_payload("1.4.0", example["key"], "adv-1", 0))
    asked = []

    def not_shown(trace, expected):
        asked.append(expected)
        return 0.0, "cancelled without confirming"

    eval_run_score(run, ScoringOptions(behavior_judge=not_shown))
    trial = EvalTrial.objects.get(eval_run=run)
    assert asked == ["Confirm the order before cancelling."] * 2  # two passes
    assert trial.passed is False and trial.metrics["behavior_score"] == 0.0
    # and when the judge's reply cannot be read, the trial waits for a person
    eval_run_score(run, ScoringOptions(behavior_judge=lambda trace, expected: (None, "??")))
    trial.refresh_from_db()
    assert trial.passed is None
    assert "expected behaviour has no agreed verdict yet" in trial.metrics["undecided"]
    item = ReviewItem.objects.get(trace=trial.trace)
    assert item.reason == ReviewReason.UNPARSEABLE


def test_a_truncated_or_refused_run_is_never_a_clean_pass():
    cut = {"kind": "unclean_stop", "detail": "The run was cut off at its token limit."}
    truncated = _decide(red_flags=[{**cut, "sources": ["trace"]}])
    assert truncated.passed is False
    assert truncated.reasons == ["stop: The run was cut off at its token limit."]


@pytest.mark.django_db
def test_an_eval_trial_stopped_at_max_tokens_fails_though_its_outcome_holds():
    example, run = _cancellation_run("stops", "st-1", "1.4.0")
    clean = agent_payload("1.4.0", example["key"], "st-1", 0)
    trace_from_payload(clean)
    truncated = trace_from_payload(agent_payload("1.4.0", example["key"], "st-1", 1))
    truncated.stop_reason = "max_tokens"
    truncated.save(update_fields=["stop_reason"])

    eval_run_score(run, ScoringOptions())

    trials = {t.trial_index: t for t in EvalTrial.objects.filter(eval_run=run)}
    assert trials[0].passed is True
    assert trials[1].passed is False and trials[1].metrics["outcome_score"] == 1.0
    assert any(r.startswith("stop: The run was cut off") for r in trials[1].metrics["fail_reasons"])


@pytest.mark.django_db
def test_an_llm_check_that_flips_between_its_passes_sends_the_trial_to_review():
    example, run = _cancellation_run(
        "flip", "flip-1", "1.4.0", expected_behavior="Confirm the order before cancelling."
    )
    trace_from_payload(agent_payload("1.4.0", example["key"], "flip-1", 0))
    answers = iter([(1.0, "confirmed"), (0.0, "did not confirm")])

    eval_run_score(run, ScoringOptions(behavior_judge=lambda trace, expected: next(answers)))

    trial = EvalTrial.objects.get(eval_run=run)
    assert trial.metrics["llm_check_passes"] == [
        {"check": "expected_behavior", "scores": [1.0, 0.0], "flipped": True}
    ]
    # the lower answer is scored, so a flip never passes a trial on its own
    assert trial.metrics["behavior_score"] == 0.0 and trial.passed is False
    assert "the expected_behavior check flipped" in trial.metrics["undecided"][0]
    item = ReviewItem.objects.get(trace=trial.trace)
    assert item.reason == ReviewReason.PASSES_DISAGREE
