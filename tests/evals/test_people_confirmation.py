"""People confirm a regression: the compare page sends regressed tasks to pairwise review, the
page and the gate report say what people preferred, and the gate can wait for them to block."""

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.urls import reverse

from accounts.roles import ANNOTATOR
from golden.evals.confirmation import (
    IMPROVED,
    REGRESSED,
    eval_run_pairs_enqueue,
    people_confirmation,
)
from golden.evals.gate import GateConfig, gate_evaluate
from reviews.claims import review_item_claim_next
from reviews.models import PairwiseComparison, ReviewStatus
from reviews.pairwise import pairwise_answer, pairwise_layout, pairwise_queue
from tests.evals.golden_set import (
    baseline_and_candidate_scored,
    golden_version_create,
)
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def runs():
    dataset = golden_version_create()
    return baseline_and_candidate_scored(dataset, trials=2)


def _people_say(preference):
    """An annotator answers every open pairwise item with this overall preference."""
    user = UserFactory()
    user.groups.add(Group.objects.get_or_create(name=ANNOTATOR)[0])
    queue = pairwise_queue()
    while item := review_item_claim_next(user=user, queue=queue):
        side = pairwise_layout(item.pairwise).side_of(preference)
        pairwise_answer(item=item, user=user, answers=[side])


def test_regressed_tasks_become_pairs_of_the_first_trials(runs):
    # given a candidate that got the order cancellation worse
    base, cand = runs
    # when the regressed tasks are sent, twice
    first = eval_run_pairs_enqueue(base, cand, direction=REGRESSED)
    again = eval_run_pairs_enqueue(base, cand, direction=REGRESSED)
    # then one pair per regressed task, of trial 0 of each run, queued once
    assert (first["created"], again["created"], again["existing"]) == (1, 0, 1)
    pair = PairwiseComparison.objects.get()
    assert pair.task_key == "cancel-recent-order" and pair.direction == REGRESSED
    assert (pair.baseline_run_id, pair.candidate_run_id) == (base.pk, cand.pk)
    assert (
        pair.baseline_trace_id
        == base.trials.get(entry__example_key="cancel-recent-order", trial_index=0).trace_id
    )
    assert pair.item.priority == 1
    # and no task improved in this pair of runs
    assert eval_run_pairs_enqueue(base, cand, direction=IMPROVED)["created"] == 0


def test_confirmation_counts_settled_and_open_pairs(runs):
    base, cand = runs
    assert people_confirmation(base, cand)["text"] == (
        "People preferred the baseline on 0 of 1 regressed task (1 not sent to review)."
    )
    eval_run_pairs_enqueue(base, cand)
    assert people_confirmation(base, cand)["pending"] == 1
    _people_say("baseline")
    people = people_confirmation(base, cand)
    assert (people["preferred_baseline"], people["settled"], people["pending"]) == (1, 1, 0)
    assert people["text"] == "People preferred the baseline on 1 of 1 regressed task."


def test_gate_waits_for_people_then_blocks_when_they_confirm(runs):
    base, cand = runs
    config = GateConfig(require_people_confirmation=True)
    # without the option the drop blocks at once, and the report says what people said
    plain = gate_evaluate(base, cand)
    assert plain["decision"] == "block" and "people" in plain
    # with it, an unreviewed drop waits for people
    eval_run_pairs_enqueue(base, cand)
    waiting = gate_evaluate(base, cand, config)
    assert waiting["decision"] == "awaiting_people"
    assert "Awaiting people" in waiting["summary"] and waiting["blocked_by"]
    _people_say("baseline")
    confirmed = gate_evaluate(base, cand, config)
    assert confirmed["decision"] == "block"
    assert "People preferred the baseline on 1 of 1" in confirmed["summary"]


def test_gate_passes_when_people_prefer_the_candidate(runs):
    base, cand = runs
    eval_run_pairs_enqueue(base, cand)
    _people_say("candidate")
    report = gate_evaluate(base, cand, GateConfig(require_people_confirmation=True))
    assert report["decision"] == "pass"
    assert "people did not confirm" in report["summary"]


def test_gate_api_takes_the_option_and_refuses_a_bad_share(runs, annotator, api_client_for):
    base, cand = runs
    eval_run_pairs_enqueue(base, cand)
    client = api_client_for(annotator)
    body = {"baseline": base.pk, "candidate": cand.pk, "require_people_confirmation": True}
    response = client.post("/api/gate/", body, format="json")
    assert response.status_code == 200
    assert response.json()["decision"] == "awaiting_people"
    assert response.json()["people"]["pending"] == 1
    bad = client.post("/api/gate/", {**body, "confirmation_share": 2}, format="json")
    assert bad.status_code == 400 and "confirmation_share" in bad.content.decode()


def test_compare_page_shows_what_people_said_and_curators_send_pairs(runs, client, curator):
    base, cand = runs
    client.force_login(curator)
    url = reverse("golden:eval_run_compare")
    page = client.get(url, {"baseline": base.pk, "candidate": cand.pk}).content.decode()
    assert "People preferred the baseline on 0 of 1 regressed task" in page
    assert 'id="send-pairs-regressed"' in page
    response = client.post(
        reverse("golden:eval_run_pairs_send"),
        {"baseline": base.pk, "candidate": cand.pk, "direction": "regressed"},
    )
    assert response.status_code == 302 and "#people" in response["Location"]
    assert PairwiseComparison.objects.filter(item__status=ReviewStatus.OPEN).count() == 1
    _people_say("baseline")
    page = client.get(url, {"baseline": base.pk, "candidate": cand.pk}).content.decode()
    assert "People preferred the baseline on 1 of 1 regressed task." in page


def test_annotators_cannot_send_pairs(runs, client, annotator):
    base, cand = runs
    client.force_login(annotator)
    page = client.get(
        reverse("golden:eval_run_compare"), {"baseline": base.pk, "candidate": cand.pk}
    ).content.decode()
    assert 'id="send-pairs-regressed"' not in page
    response = client.post(
        reverse("golden:eval_run_pairs_send"), {"baseline": base.pk, "candidate": cand.pk}
    )
    assert response.status_code == 403
    assert not PairwiseComparison.objects.exists()


def test_gate_command_exits_3_while_people_have_not_confirmed(runs, capsys):
    base, cand = runs
    eval_run_pairs_enqueue(base, cand)
    args = ["gate", "--baseline", base.name, "--candidate", cand.name]
    with pytest.raises(SystemExit) as blocked:
        call_command(*args)
    assert blocked.value.code == 1
    with pytest.raises(SystemExit) as waiting:
        call_command(*args, "--require-people-confirmation")
    assert waiting.value.code == 3
    assert "People preferred the baseline on 0 of 1 regressed task (1 still open" in (
        capsys.readouterr().out
    )
