"""A background trace deletion started through the API is carried out by a real worker."""

import pytest

from tests.factories import GoldenExampleFactory, TraceFactory, UserFactory
from tests.integration.conftest import wait_for
from traces.models import Trace, TraceDeletion

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_a_worker_deletes_the_filters_traces_and_leaves_the_kept(celery_worker, api_client_for):
    doomed = [TraceFactory(agent_version="2.0.0") for _ in range(30)]
    GoldenExampleFactory(source_trace=doomed[7])
    other = TraceFactory(agent_version="1.0.0")
    api = api_client_for(UserFactory(username="cora", roles=["curator"]))

    started = api.post(
        "/api/traces/deletions/", {"filter": {"agent_version": "2.0.0"}}, format="json"
    )
    assert started.status_code == 202, started.content

    deletion = wait_for(
        lambda: TraceDeletion.objects.filter(pk=started.json()["id"], status="done").first(),
        message="the worker never finished the deletion",
    )
    assert (deletion.matched, deletion.deleted, deletion.kept) == (30, 29, 1)
    assert set(Trace.objects.values_list("pk", flat=True)) == {doomed[7].pk, other.pk}
