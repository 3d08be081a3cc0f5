"""The pairwise judge: both trajectories read whole, asked twice with the order swapped, the
answers un-swapped and reconciled, position bias measured, through the ordinary judge pass."""

import json

import pytest

from core.errors import ApplicationError
from judges.calibration import judge_calibration_get
from judges.execution import judgment_execute, judgment_request
from judges.models import (
    CalibrationStatus,
    Judgment,
    JudgmentStatus,
    PairwiseVerdict,
    PairwiseVerdictStatus,
    ParseStatus,
    Rubric,
)
from judges.pairwise import (
    OVERALL,
    PAIR_TRACE,
    TRACE,
    pairwise_prompt_render,
    pairwise_reply_parse,
    preference_of,
)
from judges.pairwise_runs import pairwise_run_start
from judges.pairwise_verdicts import position_bias_by_version
from judges.prompts import TRACE_CLOSE
from judges.rubrics import RubricTemplateError, rubric_version_create
from judges.services import judge_run_start
from tests.judges import sample_traces

pytestmark = pytest.mark.django_db


@pytest.fixture
def pairwise_rubric(db):
    """The built-in pairwise rubric's first version (from the seed migration)."""
    return Rubric.objects.get(name="Pairwise preference").versions.get(number=1)


def _pair():
    good = sample_traces.support_cancel_ok()
    bad = sample_traces.support_confident_after_error()
    return good, bad


def _run(version, config, pairs, capture):
    with capture(execute=False):
        run = pairwise_run_start(rubric_version=version, config=config, pairs=pairs)
    return run, list(run.judgments.order_by("trace_id", "pair_trace_id", "pass_index"))


def _reply(version, letter, criteria_letter=None):
    questions = [c["question"] for c in version.criteria]
    return json.dumps(
        {
            "criteria": [
                {"question": q, "better": criteria_letter or letter, "reason": "r"}
                for q in questions
            ],
            "overall": {"better": letter, "reason": "because"},
        }
    )


def test_both_trajectories_are_fenced_whole_and_the_second_pass_swaps_them(pairwise_rubric):
    good, bad = _pair()
    first = pairwise_prompt_render(pairwise_rubric, good, bad, pass_index=0)
    second = pairwise_prompt_render(pairwise_rubric, good, bad, pass_index=1)
    # each pass shows two fenced trajectories, every span of both
    assert first.user.count(TRACE_CLOSE) == 2
    a_part, b_part = first.user.split("Trajectory B:")
    assert "Refund" not in first.system and "A1042" not in first.system
    assert "cancelled" in a_part and "503 orders-db unavailable" in b_part
    # the second pass shows the other one first
    a_swapped, b_swapped = second.user.split("Trajectory B:")
    assert "503 orders-db unavailable" in a_swapped and "503" not in b_swapped
    assert first.system == second.system  # the cached block is the same for both
    for question in (c["question"] for c in pairwise_rubric.criteria):
        assert question in first.system


def test_a_reply_is_un_swapped_into_what_it_says_about_the_pair(pairwise_rubric):
    # pass 1 shows trace as A; pass 2 shows trace as B
    assert preference_of("A", 0) == TRACE and preference_of("A", 1) == PAIR_TRACE
    assert preference_of("B", 1) == TRACE and preference_of("equal", 1) == "equal"
    parsed = pairwise_reply_parse(_reply(pairwise_rubric, "B"), pairwise_rubric, pass_index=1)
    assert parsed.status == ParseStatus.OK
    assert parsed.score == 0.0  # B of a swapped pass is `trace`
    assert parsed.answers[-1] == {
        "question": OVERALL,
        "shown": "B",
        "preferred": TRACE,
        "reason": "because",
    }
    assert len(parsed.answers) == len(pairwise_rubric.criteria) + 1


@pytest.mark.parametrize(
    "reply, error",
    [
        ('{"criteria": []}', "overall is missing"),
        ('{"criteria": [], "overall": {"better": "C"}}', "criteria asked"),
        ("not json", "no JSON object"),
    ],
)
def test_an_unusable_pairwise_reply_says_why(pairwise_rubric, reply, error):
    parsed = pairwise_reply_parse(reply, pairwise_rubric, pass_index=0)
    assert parsed.status == ParseStatus.UNPARSEABLE and error in parsed.error
    assert parsed.score is None


def test_a_wrong_letter_names_the_field(pairwise_rubric):
    reply = _reply(pairwise_rubric, "first")
    parsed = pairwise_reply_parse(reply, pairwise_rubric, pass_index=0)
    assert parsed.status == ParseStatus.UNPARSEABLE
    assert 'criteria[0].better must be "A", "B" or "equal"' in parsed.error


def test_the_simulated_judge_prefers_the_sound_trajectory_in_both_orders(
    simulator, pairwise_rubric, default_config, capture
):
    good, bad = _pair()
    run, passes = _run(pairwise_rubric, default_config, [(bad.pk, good.pk)], capture)
    assert [p.pass_index for p in passes] == [0, 1]
    assert all(p.pair_trace_id == good.pk for p in passes)

    outcomes = [judgment_execute(p.pk).state for p in passes]

    assert outcomes == ["done", "done"]
    stored = Judgment.objects.filter(run=run).order_by("pass_index")
    # pass 1 saw the good one as B, pass 2 as A: un-swapped, both prefer pair_trace
    assert [p.criteria_results[-1]["shown"] for p in stored] == ["B", "A"]
    assert [p.score for p in stored] == [1.0, 1.0]
    assert all(p.input_tokens > 0 and p.cost_usd > 0 for p in stored)
    assert stored[0].request_hash != stored[1].request_hash
    verdict = PairwiseVerdict.objects.get(run=run)
    assert (verdict.status, verdict.score, verdict.followed_position) == (
        PairwiseVerdictStatus.AGREED,
        1.0,
        False,
    )
    assert verdict.criteria_results[-1]["preferred"] == PAIR_TRACE
    assert "cancel_order failed but the answer is confident" in verdict.reason
    run.refresh_from_db()
    assert run.status == "done"
    # the judge version is listed, calibrating, from its first run
    calibration = judge_calibration_get(pairwise_rubric, default_config)
    assert calibration.status == CalibrationStatus.CALIBRATING


def test_passes_that_follow_the_position_are_unsure_and_counted_as_bias(
    simulator, pairwise_rubric, default_config, capture
):
    good, bad = _pair()
    other_good = sample_traces.support_cancel_ok()
    run, passes = _run(
        pairwise_rubric, default_config, [(bad.pk, good.pk), (good.pk, other_good.pk)], capture
    )
    by_pair = {}
    for judgment in passes:
        by_pair.setdefault((judgment.trace_id, judgment.pair_trace_id), []).append(judgment)
    # a judge that always says "A" on the first pair; the second pair answered honestly
    replies = {
        (bad.pk, good.pk): [_reply(pairwise_rubric, "A"), _reply(pairwise_rubric, "A")],
        (good.pk, other_good.pk): [_reply(pairwise_rubric, "equal")] * 2,
    }
    script = []
    for pair, judgments in by_pair.items():
        for judgment, reply in zip(judgments, replies[pair], strict=True):
            script.append((judgment.pk, reply))
    from judges.execution import judgment_complete
    from judges.pass_rows import judgment_claim_and_load
    from judges.providers.common import ProviderReply

    for judgment_id, text in script:
        claimed = judgment_claim_and_load(judgment_id)
        claimed.rubric_version = pairwise_rubric
        judgment_complete(claimed, ProviderReply(text, 10, 5, 0, 0, 1), f"digest-{judgment_id}")

    biased = PairwiseVerdict.objects.get(run=run, trace=bad)
    assert biased.status == PairwiseVerdictStatus.POSITION_BIASED
    assert biased.score is None and biased.followed_position
    assert "pass 1 said A, pass 2 said A" in biased.reason
    agreed = PairwiseVerdict.objects.get(run=run, trace=good)
    assert (agreed.status, agreed.score) == (PairwiseVerdictStatus.AGREED, 0.5)
    bias = position_bias_by_version([pairwise_rubric.pk])[(pairwise_rubric.pk, default_config.pk)]
    assert (bias.answered, bias.agreed, bias.followed_position) == (2, 1, 1)
    assert bias.rate == 0.5 and bias.unsure_rate == 0.5


def test_a_failed_pass_fails_the_pair(simulator, pairwise_rubric, default_config, capture):
    simulator.set(script=["ok", "500", "500", "500"])
    good, bad = _pair()
    run, passes = _run(pairwise_rubric, default_config, [(bad.pk, good.pk)], capture)
    judgment_execute(passes[0].pk)
    states = [judgment_execute(passes[1].pk).state for _ in range(3)]
    # transient errors are retried with the ordinary cap, then the pass fails
    assert states[:2] == ["retry", "retry"] and states[-1] == "failed"
    verdict = PairwiseVerdict.objects.get(run=run)
    assert verdict.status == PairwiseVerdictStatus.FAILED and "pass 2" in verdict.reason
    assert Judgment.objects.get(pk=passes[1].pk).status == JudgmentStatus.FAILED
    # a failed pair is no answer: it is not in the bias figure
    assert position_bias_by_version([pairwise_rubric.pk]) == {}


def test_a_redelivered_pass_is_skipped_and_the_verdict_written_once(
    simulator, pairwise_rubric, default_config, capture
):
    good, bad = _pair()
    run, passes = _run(pairwise_rubric, default_config, [(bad.pk, good.pk)], capture)
    for judgment in passes:
        judgment_execute(judgment.pk)
    again = [judgment_execute(p.pk).state for p in passes]
    assert again == ["skipped", "skipped"]
    assert PairwiseVerdict.objects.filter(run=run).count() == 1
    assert simulator.request_count == 2


def test_one_trace_may_be_compared_with_several_in_one_run(
    simulator, pairwise_rubric, default_config, capture
):
    good, bad = _pair()
    other = sample_traces.support_cancel_ok()
    run, passes = _run(
        pairwise_rubric, default_config, [(bad.pk, good.pk), (bad.pk, other.pk)], capture
    )
    assert len(passes) == 4
    for judgment in passes:
        judgment_execute(judgment.pk)
    assert PairwiseVerdict.objects.filter(run=run, trace=bad).count() == 2


def test_the_request_is_the_provider_request_at_temperature_zero(
    pairwise_rubric, default_config, capture
):
    good, bad = _pair()
    _, passes = _run(pairwise_rubric, default_config, [(bad.pk, good.pk)], capture)
    judgment = Judgment.objects.select_related("trace", "config", "run").get(pk=passes[1].pk)
    judgment.rubric_version = pairwise_rubric
    request = judgment_request(judgment)
    assert request.params["temperature"] == 0
    user = request.params["messages"][0]["content"]
    text = user if isinstance(user, str) else user[0]["text"]
    # pass 2: the pair trace (the good one) is shown first
    assert text.index("cancelled") < text.index("503 orders-db unavailable")


def test_pairwise_runs_and_single_trace_runs_are_kept_apart(
    pairwise_rubric, tool_rubric, default_config
):
    good, bad = _pair()
    with pytest.raises(ApplicationError) as single:
        judge_run_start(rubric_version=pairwise_rubric, config=default_config, traces=[good])
    assert single.value.field == "rubric_version"
    with pytest.raises(ApplicationError) as not_pairwise:
        pairwise_run_start(rubric_version=tool_rubric, config=default_config, pairs=[(1, 2)])
    assert not_pairwise.value.field == "rubric_version"
    with pytest.raises(ApplicationError) as same:
        pairwise_run_start(
            rubric_version=pairwise_rubric, config=default_config, pairs=[(good.pk, good.pk)]
        )
    assert same.value.field == "pairs"


def test_a_pairwise_template_must_show_both_trajectories(pairwise_rubric):
    fields = {
        "system_prompt": "Compare.",
        "user_template": "{{ task }}\n{{ trajectory_a }}",
        "score_type": "pairwise",
        "output_format": "pairwise",
    }
    with pytest.raises(RubricTemplateError) as missing:
        rubric_version_create(rubric=pairwise_rubric.rubric, **fields)
    assert "{{ trajectory_b }}" in str(missing.value)
    fields.update(system_prompt="Compare {{ trajectory_a }}", user_template="{{ trajectory_a }}")
    with pytest.raises(RubricTemplateError) as leaked:
        rubric_version_create(rubric=pairwise_rubric.rubric, **fields)
    assert "out of the system prompt" in str(leaked.value)
