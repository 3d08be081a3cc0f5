"""A pairwise queue's judge: hidden while it calibrates against what people settle, then
pre-filling its pick or settling the pairs it is sure of; unsure pairs stay with people, and
the gate counts what it settled only where the curator allowed it."""

import pytest
from django.urls import reverse

from judges.execution import judgment_execute
from judges.models import (
    CalibrationStatus,
    JudgeCalibration,
    JudgeConfig,
    Judgment,
    PairwiseVerdictStatus,
    Rubric,
)
from reviews.claims import review_item_claim_next
from reviews.forms import QueueForm
from reviews.models import (
    AuditEvent,
    JudgeAssist,
    PairwiseSource,
    Queue,
    QueueKind,
    ReviewStatus,
)
from reviews.pairwise import (
    BASELINE,
    CANDIDATE,
    pairwise_answer,
    pairwise_item_create,
    pairwise_layout,
    pairwise_questions,
    pairwise_run_preferences,
)
from reviews.pairwise_judge import pairwise_calibration_pairs, queue_judge_calibrated
from reviews.pairwise_judge_pick import pairwise_judge_pick
from tests.judges import sample_traces

pytestmark = pytest.mark.django_db


@pytest.fixture
def capture(django_capture_on_commit_callbacks):
    """Collect on-commit callbacks (task enqueues) instead of sending them to a broker."""
    return django_capture_on_commit_callbacks


@pytest.fixture
def small_calibration(settings):
    settings.CALIBRATION_MIN_ITEMS = 2
    settings.CALIBRATION_WINDOW = 10
    settings.CALIBRATION_KAPPA_BAR = 0.6


def _queue(assist=JudgeAssist.PREFILL, **extra):
    return Queue.objects.create(
        name=f"Judged pairs {assist}",
        kind=QueueKind.PAIRWISE,
        rubric=Rubric.objects.get(name="Pairwise preference"),
        judge_assist=assist,
        **extra,
    )


def _pair(queue, candidate_is_good: bool, capture, **extra):
    """A pair whose candidate is the sound trajectory (or the one that hides an error);
    the queue's judge is asked about it as it is queued."""
    good = sample_traces.support_cancel_ok()
    bad = sample_traces.support_confident_after_error()
    bad.task = good.task
    bad.save(update_fields=["task"])
    baseline, candidate = (bad, good) if candidate_is_good else (good, bad)
    with capture(execute=False):
        item, _ = pairwise_item_create(
            baseline_trace=baseline,
            candidate_trace=candidate,
            source=PairwiseSource.TRACES,
            queue=queue,
            **extra,
        )
    return item


def _judge(item):
    passes = Judgment.objects.filter(
        trace=item.pairwise.baseline_trace, pair_trace=item.pairwise.candidate_trace
    )
    assert passes.count() == 2
    for judgment in passes:
        judgment_execute(judgment.pk)
    item.refresh_from_db()
    item.pairwise.refresh_from_db()
    return item


def _people_say(item, user, preference):
    review_item_claim_next(user=user, queue=item.queue)
    side = pairwise_layout(item.pairwise).side_of(preference)
    answers = [side] * len(pairwise_questions(item))
    pairwise_answer(item=item, user=user, answers=answers)
    item.refresh_from_db()
    return item


def _approve(queue):
    version = queue.rubric.latest_version()
    config = JudgeConfig.objects.get(name="default")
    JudgeCalibration.objects.update_or_create(
        rubric_version=version, config=config, defaults={"status": CalibrationStatus.APPROVED}
    )


def test_the_judge_is_hidden_while_calibrating_and_prefills_once_calibrated(
    simulator, small_calibration, capture, client, annotator
):
    queue = _queue(JudgeAssist.PREFILL)
    first = _judge(_pair(queue, True, capture))
    second = _judge(_pair(queue, False, capture))
    third = _judge(_pair(queue, True, capture))
    assert first.pairwise.judge_verdict.status == PairwiseVerdictStatus.AGREED
    # calibrating: its answers exist but nobody sees them, and nothing is settled by it
    assert not queue_judge_calibrated(queue)
    assert pairwise_judge_pick(third) is None
    assert third.status == ReviewStatus.OPEN

    # people settle two pairs the judge answered the same way
    _people_say(first, annotator, CANDIDATE)
    _people_say(second, annotator, BASELINE)

    calibration = JudgeCalibration.objects.get(rubric_version=queue.rubric.latest_version())
    assert (calibration.status, calibration.items, calibration.kappa) == ("approved", 2, 1.0)
    assert pairwise_calibration_pairs(calibration.rubric_version, calibration.config) == [
        (1.0, 1.0),
        (0.0, 0.0),
    ]
    # calibrated: the pick shows, in the page's sides, and the radios are filled in
    review_item_claim_next(user=annotator, queue=queue)
    client.force_login(annotator)
    html = client.get(reverse("reviews:item_detail", args=[third.pk])).content.decode()
    good_side = pairwise_layout(third.pairwise).side_of(CANDIDATE)
    assert 'id="judge-pick"' in html and "change any answer you disagree with" in html
    assert f'name="answer-0" value="{good_side}" data-choice="{good_side}" checked' in html
    assert "cancel_order failed but the answer is confident" in html
    # the person may answer otherwise: theirs is what is stored
    other = "A" if good_side == "B" else "B"
    count = len(pairwise_questions(third))
    response = client.post(
        reverse("reviews:pairwise_answer", args=[third.pk]),
        {f"answer-{i}": other for i in range(count)},
    )
    assert response.status_code == 302
    third.refresh_from_db()
    assert third.resolved_score == 0.0 and not third.pairwise.settled_by_judge


def test_a_calibrated_replacing_judge_settles_sure_pairs_and_leaves_unsure_ones(simulator, capture):
    queue = _queue(JudgeAssist.REPLACE)
    _approve(queue)
    sure = _judge(_pair(queue, True, capture))
    assert sure.status == ReviewStatus.RESOLVED and sure.resolved_score == 1.0
    assert sure.pairwise.settled_by_judge
    assert not sure.annotations.exists()
    event = AuditEvent.objects.get(action="review_item.judge_settle", object_id=str(sure.pk))
    assert event.actor is None and event.after["pairwise_verdict"] == sure.pairwise.judge_verdict_id
    assert pairwise_judge_pick(sure)["settled_by_judge"]

    # the second pass answers the other way: the order decided, so people do
    simulator.set(script=["ok", "flip"])
    unsure = _judge(_pair(queue, False, capture))
    verdict = unsure.pairwise.judge_verdict
    assert verdict.status == PairwiseVerdictStatus.POSITION_BIASED and verdict.followed_position
    assert unsure.status == ReviewStatus.OPEN and not unsure.pairwise.settled_by_judge
    assert "The judge was unsure" in unsure.detail
    pick = pairwise_judge_pick(unsure)
    assert pick is not None and not pick["sure"]


def test_an_uncalibrated_replacing_judge_settles_nothing(simulator, capture):
    queue = _queue(JudgeAssist.REPLACE)
    item = _judge(_pair(queue, True, capture))
    assert item.pairwise.judge_verdict is not None
    assert item.status == ReviewStatus.OPEN and not item.pairwise.settled_by_judge


def test_a_pair_people_hold_is_not_settled_by_the_judge(simulator, capture, annotator):
    queue = _queue(JudgeAssist.REPLACE)
    _approve(queue)
    item = _pair(queue, True, capture)
    review_item_claim_next(user=annotator, queue=queue)
    item = _judge(item)
    assert item.status == ReviewStatus.OPEN and item.claimed_by_id == annotator.pk


def test_the_gate_counts_judge_settled_pairs_only_when_the_curator_allowed_it(simulator, capture):
    queue = _queue(JudgeAssist.REPLACE)
    _approve(queue)
    _judge(_pair(queue, False, capture, baseline_run_id=7, candidate_run_id=8, task_key="t1"))
    # settled by the judge (the baseline is better), but not counted: it waits for people
    assert pairwise_run_preferences(7, 8) == {"t1": None}
    queue.judge_answers_confirm_gate = True
    queue.save(update_fields=["judge_answers_confirm_gate"])
    assert pairwise_run_preferences(7, 8) == {"t1": BASELINE}


def test_no_judge_is_asked_when_the_queue_has_it_off(capture):
    queue = _queue(JudgeAssist.OFF)
    _pair(queue, True, capture)
    assert not Judgment.objects.filter(pair_trace__isnull=False).exists()


def test_the_api_asks_the_judge_about_unanswered_pairs_once(
    capture, api_client_for, curator, annotator
):
    queue = _queue(JudgeAssist.OFF)
    _pair(queue, True, capture)
    _pair(queue, False, capture)
    url = reverse("api-review-pairwise-judge", args=[queue.pk])
    off = api_client_for(curator).post(url)
    assert off.status_code == 400 and "judge_assist" in off.json()["error"]["fields"]
    queue.judge_assist = JudgeAssist.PREFILL
    queue.save(update_fields=["judge_assist"])

    with capture(execute=False):
        first = api_client_for(curator).post(url)
    assert first.status_code == 201 and first.json()["pairs"] == 2
    assert Judgment.objects.filter(run_id=first.json()["run_id"]).count() == 4
    # the passes are pending: asking again asks nothing new
    again = api_client_for(curator).post(url)
    assert again.status_code == 200 and again.json() == {"run_id": None, "pairs": 0}
    assert api_client_for(annotator).post(url).status_code == 403
    single = Queue.objects.create(name="Single")
    not_pairwise = api_client_for(curator).post(
        reverse("api-review-pairwise-judge", args=[single.pk])
    )
    assert not_pairwise.status_code == 400 and "queue" in not_pairwise.json()["error"]["fields"]


def test_the_queue_form_keeps_the_judge_to_pairwise_queues_with_a_pairwise_rubric():
    tool_rubric = Rubric.objects.get(name="Tool-call decision accuracy")
    form = QueueForm(
        data={
            "name": "Mixed",
            "kind": QueueKind.SINGLE,
            "rubric": tool_rubric.pk,
            "priority": 0,
            "annotators_per_item": 1,
            "audit_sample_rate": 0,
            "judge_assist": JudgeAssist.PREFILL,
        }
    )
    assert not form.is_valid()
    assert "Only a pairwise queue has a pairwise judge." in form.errors["judge_assist"]
    assert "Pick a pairwise rubric" in form.errors["judge_assist"][1]


def test_the_queue_page_shows_the_judge_its_calibration_and_position_bias(
    simulator, capture, client, curator
):
    queue = _queue(JudgeAssist.PREFILL)
    _judge(_pair(queue, True, capture))
    simulator.set(script=["ok", "flip"])
    _judge(_pair(queue, False, capture))
    client.force_login(curator)
    html = client.get(reverse("reviews:queue_detail", args=[queue.pk])).content.decode()
    assert 'id="pairwise-judge"' in html and "calibrating" in html
    assert "0.50: 1 of 2 pairs answered A twice or B twice" in html
    assert "2 of 2 answered by the judge" in html
    # and where judge versions are listed, beside their calibration
    listed = client.get(reverse("insights:calibration_list")).content.decode()
    row = listed[listed.index("Pairwise preference v1") :]
    assert '<td class="position-bias">0.50' in row
    assert "(1 of 2 pairs asked both ways)" in row
