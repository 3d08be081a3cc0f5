"""Idempotency-Key on POSTs that create work, and 202 when the broker cannot take the tasks."""

import pytest
from kombu.exceptions import OperationalError

from accounts.models import IdempotencyKey
from accounts.roles import CURATOR
from judges.models import JudgeRun, Judgment, JudgmentStatus, RubricVersionStatus
from judges.tasks import judge_pass_task
from tests.factories import (
    JudgeConfigFactory,
    RubricVersionFactory,
    TraceFactory,
    UserFactory,
)


@pytest.fixture
def run_request(db):
    version = RubricVersionFactory(status=RubricVersionStatus.APPROVED)
    JudgeConfigFactory()
    traces = [TraceFactory(), TraceFactory()]
    return {"rubric_version": version.pk, "trace_ids": [t.pk for t in traces]}


@pytest.fixture
def broker_down(monkeypatch):
    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(judge_pass_task, "apply_async", refuse)
    return attempts


@pytest.mark.django_db
def test_a_retry_with_the_same_key_gets_the_same_answer_and_starts_nothing(
    curator, api_client_for, run_request, django_capture_on_commit_callbacks
):
    client = api_client_for(curator)
    headers = {"HTTP_IDEMPOTENCY_KEY": "run-7f3c"}

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        first = client.post("/api/judge-runs/", run_request, format="json", **headers)
        second = client.post("/api/judge-runs/", run_request, format="json", **headers)

    assert first.status_code == 201, first.json()
    assert (second.status_code, second.json()) == (201, first.json())
    assert second["Idempotent-Replayed"] == "true"
    assert JudgeRun.objects.count() == 1
    assert Judgment.objects.count() == 4
    assert len(callbacks) == 1


@pytest.mark.django_db
def test_a_key_is_per_person_and_without_a_key_every_post_is_new(
    curator, api_client_for, run_request, django_capture_on_commit_callbacks
):
    cora = api_client_for(curator)
    carl = api_client_for(UserFactory(username="carl", roles=[CURATOR]))
    with django_capture_on_commit_callbacks(execute=False):
        cora.post("/api/judge-runs/", run_request, format="json")
        cora.post("/api/judge-runs/", run_request, format="json")
        mine = cora.post("/api/judge-runs/", run_request, format="json", HTTP_IDEMPOTENCY_KEY="k")
        theirs = carl.post("/api/judge-runs/", run_request, format="json", HTTP_IDEMPOTENCY_KEY="k")

    assert JudgeRun.objects.count() == 4
    assert theirs.json()["id"] != mine.json()["id"]


@pytest.mark.django_db
def test_the_same_key_on_another_request_is_refused(
    curator, api_client_for, run_request, django_capture_on_commit_callbacks
):
    client = api_client_for(curator)
    with django_capture_on_commit_callbacks(execute=False):
        client.post("/api/judge-runs/", run_request, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    changed = {**run_request, "sample_rate": 0.5}

    response = client.post("/api/judge-runs/", changed, format="json", HTTP_IDEMPOTENCY_KEY="k1")

    assert response.status_code == 422
    assert response.json()["error"]["fields"] == {
        "Idempotency-Key": ["This Idempotency-Key was used for another request."]
    }
    assert JudgeRun.objects.count() == 1


@pytest.mark.django_db
def test_a_refused_request_keeps_no_key_so_the_corrected_one_runs(
    curator, api_client_for, run_request, django_capture_on_commit_callbacks
):
    client = api_client_for(curator)
    bad = {**run_request, "config": "nope"}

    refused = client.post("/api/judge-runs/", bad, format="json", HTTP_IDEMPOTENCY_KEY="k2")
    with django_capture_on_commit_callbacks(execute=False):
        fixed = client.post(
            "/api/judge-runs/",
            bad | {"config": "default"},
            format="json",
            HTTP_IDEMPOTENCY_KEY="k2",
        )

    assert refused.status_code == 400
    assert fixed.status_code == 201, fixed.json()
    assert IdempotencyKey.objects.get().status_code == 201


@pytest.mark.django_db
@pytest.mark.parametrize("key", ["", "x" * 256, "has space", "ünï"])
def test_a_malformed_key_is_refused_naming_the_header(curator, api_client_for, run_request, key):
    response = api_client_for(curator).post(
        "/api/judge-runs/", run_request, format="json", HTTP_IDEMPOTENCY_KEY=key
    )

    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["Idempotency-Key"]
    assert JudgeRun.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_with_the_broker_down_the_run_is_accepted_and_left_to_the_sweep(
    curator, api_client_for, run_request, broker_down, settings
):
    from judges.execution import judgments_stale

    client = api_client_for(curator)

    first = client.post("/api/judge-runs/", run_request, format="json", HTTP_IDEMPOTENCY_KEY="r1")
    retry = client.post("/api/judge-runs/", run_request, format="json", HTTP_IDEMPOTENCY_KEY="r1")

    assert first.status_code == 202, first.content
    assert (retry.status_code, retry.json()) == (202, first.json())
    assert len(broker_down) == 1  # the first refusal ends the attempts; the rest wait
    run = JudgeRun.objects.get()
    assert first.json()["id"] == run.pk
    pending = Judgment.objects.filter(run=run, status=JudgmentStatus.PENDING)
    assert pending.count() == 4
    settings.JUDGE_CLAIM_LEASE_SECONDS = -1  # as if the lease had passed
    assert sorted(judgments_stale()) == sorted(pending.values_list("pk", flat=True))


@pytest.mark.django_db(transaction=True)
def test_with_the_broker_up_the_run_is_created(curator, api_client_for, run_request, monkeypatch):
    sent = []
    monkeypatch.setattr(judge_pass_task, "apply_async", lambda args, **kw: sent.append(args))

    response = api_client_for(curator).post("/api/judge-runs/", run_request, format="json")

    assert response.status_code == 201
    assert len(sent) == 4
