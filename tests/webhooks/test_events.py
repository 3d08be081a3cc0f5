"""Each subscribable event is published by the stage where it happens, once."""

import pytest

from golden.models import DatasetVersion
from golden.services import dataset_version_create
from judges.calibration import judge_calibration_update
from tests.evals.eval_runs import eval_run
from tests.evals.golden_set import gate_command
from tests.factories import JudgeRunFactory, ReviewItemFactory
from webhooks.events import GATE_BLOCKED, GOLDEN_VERSION, JUDGE_DRIFT, REVIEW_BACKLOG
from webhooks.models import WebhookDelivery
from webhooks.services import webhook_create
from webhooks.tasks import review_backlog_check_task

pytestmark = pytest.mark.django_db


def _subscribe(*events, threshold=100):
    return webhook_create(
        url="http://127.0.0.1:9/hook", events=list(events), backlog_threshold=threshold
    )


def _events():
    return list(WebhookDelivery.objects.order_by("pk").values_list("event", flat=True))


def _runs(candidate_outcome):
    dataset = DatasetVersion.objects.create(name="support-v1", content_hash="x" * 64)
    for name, outcome in (("base", 0.90), ("cand", candidate_outcome)):
        eval_run(dataset, name, outcome_score=outcome)


@pytest.fixture
def gate_asked(annotator, api_client_for, django_capture_on_commit_callbacks):
    """Ask the gate through the API about base and cand, subscribed to blocks: its decision."""
    _subscribe(GATE_BLOCKED)

    def ask() -> str:
        with django_capture_on_commit_callbacks(execute=False):
            response = api_client_for(annotator).post(
                "/api/gate/", {"baseline": "base", "candidate": "cand"}, format="json"
            )
        return response.json()["decision"]

    return ask


def test_a_blocking_gate_asked_through_the_api_is_published(gate_asked):
    _runs(candidate_outcome=0.50)

    assert gate_asked() == "block"
    [delivery] = WebhookDelivery.objects.all()
    data = delivery.payload["data"]
    assert delivery.event == GATE_BLOCKED and data["blocked_by"] == ["outcome_score"]
    assert data["candidate"]["name"] == "cand" and data["summary"].startswith("Blocked")


def test_a_passing_gate_publishes_nothing(gate_asked):
    _runs(candidate_outcome=0.90)

    assert gate_asked() == "pass"
    assert _events() == []


def test_the_gate_command_publishes_a_block(tmp_path, django_capture_on_commit_callbacks):
    _subscribe(GATE_BLOCKED)
    _runs(candidate_outcome=0.40)

    with django_capture_on_commit_callbacks(execute=False), pytest.raises(SystemExit):
        gate_command(tmp_path / "r.json", tmp_path / "j.xml")

    assert _events() == [GATE_BLOCKED]


def test_a_new_golden_version_is_published(curator, django_capture_on_commit_callbacks):
    _subscribe(GOLDEN_VERSION)

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        version = dataset_version_create(name="support-v2", user=curator)

    [delivery] = WebhookDelivery.objects.all()
    assert delivery.payload["data"]["name"] == "support-v2"
    assert delivery.payload["data"]["content_hash"] == version.content_hash
    assert len(callbacks) == 1


def test_a_judge_version_flagged_for_drift_is_published_once(django_capture_on_commit_callbacks):
    _subscribe(JUDGE_DRIFT)
    run = JudgeRunFactory()
    agreeing = [(float(i % 2), float(i % 2)) for i in range(60)]
    drift = [(float(i % 2), float((i // 2) % 2)) for i in range(30)]

    with django_capture_on_commit_callbacks(execute=False):
        judge_calibration_update(run.rubric_version, run.config, agreeing)
        assert _events() == []
        judge_calibration_update(run.rubric_version, run.config, agreeing + drift)
        judge_calibration_update(run.rubric_version, run.config, agreeing + drift + drift)

    [delivery] = WebhookDelivery.objects.all()
    assert delivery.event == JUDGE_DRIFT
    assert delivery.payload["data"]["window_kappa"] < 0.6


def test_the_backlog_event_fires_once_per_crossing(django_capture_on_commit_callbacks):
    hook = _subscribe(REVIEW_BACKLOG, threshold=2)
    items = ReviewItemFactory.create_batch(3)

    with django_capture_on_commit_callbacks(execute=False):
        assert review_backlog_check_task() == 1
        assert review_backlog_check_task() == 0  # still over: no second alert
        for item in items[:2]:
            item.status = "resolved"
            item.save()
        assert review_backlog_check_task() == 0  # back under: re-armed
        ReviewItemFactory.create_batch(2)
        assert review_backlog_check_task() == 1

    assert _events() == [REVIEW_BACKLOG, REVIEW_BACKLOG]
    first = WebhookDelivery.objects.order_by("pk").first()
    assert first.payload["data"] == {"open_items": 3, "threshold": 2}
    hook.refresh_from_db()
    assert hook.backlog_alerted
