"""GET /api/eval-runs/<id>/traces/: expected, received and complete traces of a run."""

import pytest
from django.utils import timezone

from golden.models import EvalRun
from tests.evals.golden_set import EXAMPLES, agent_payload, golden_version_create
from tests.evals.golden_set import trace_from_payload as stored
from traces.models import Trace

pytestmark = pytest.mark.django_db


def test_counts_what_the_run_expects_what_came_and_what_settled(annotator, api_client_for):
    version = golden_version_create()
    run = EvalRun.objects.create(
        name="cand", agent_version="1.5.0", dataset_version=version, trials_per_task=2
    )
    first, second = (stored(agent_payload("1.5.0", e["key"], "cand", 0)) for e in EXAMPLES[:2])
    Trace.objects.filter(pk=first.pk).update(completed_at=timezone.now())
    Trace.objects.filter(pk=second.pk).update(completed_at=None)
    stored(agent_payload("1.5.0", EXAMPLES[0]["key"], "other-run", 0))

    response = api_client_for(annotator).get(f"/api/eval-runs/{run.pk}/traces/")

    assert response.status_code == 200
    assert response.json() == {"expected": 2 * len(EXAMPLES), "received": 2, "complete": 1}
