"""A two-trace conversation, and the simulated judge the judging tests use."""

from datetime import timedelta

import pytest

from tests.judges import sample_traces
from tests.judges.conftest import capture, default_config, simulator, tool_rubric  # noqa: F401
from traces.models import Session
from traces.session_totals import sessions_totals_recount


@pytest.fixture
def conversation(db):
    """Session "conv-1": a good cancellation, then a confident answer after a failed tool."""
    first = sample_traces.support_cancel_ok()
    second = sample_traces.support_confident_after_error(project=first.project)
    second.started_at = first.started_at + timedelta(minutes=2)
    second.save(update_fields=["started_at"])
    session = Session.objects.create(project=first.project, external_id="conv-1")
    for trace in (first, second):
        trace.session = session
        trace.save(update_fields=["session"])
    sessions_totals_recount([session.pk])  # as ingest keeps them
    return session
