"""Session totals on the real database: requests for different traces of one session at the
same moment, some re-sent, leave every trace counted once."""

import pytest

from tests.integration.conftest import at_the_same_moment
from traces.ingest.services import ingest_span_tree
from traces.models import Project, Session
from traces.session_totals import sessions_totals_recount

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

TOTALS = ("trace_count", "error_count", "input_tokens", "first_started_at", "last_trace_at")


def exchange(index: int) -> dict:
    return {
        "trace_id": f"{index + 1:032x}",
        "name": "invoke_agent",
        "input": f"Question {index}",
        "output": "Answer.",
        "start_time": f"2026-11-20T10:{index:02d}:00Z",
        "end_time": f"2026-11-20T10:{index:02d}:30Z",
        "context": {"session_id": "conv-busy"},
        "children": [
            {
                "name": "chat",
                "type": "llm",
                "usage": {"input_tokens": 100, "output_tokens": 5},
                "status": "error" if index % 3 == 0 else "ok",
            }
        ],
    }


def test_concurrent_requests_into_one_session_count_each_trace_once():
    # given twelve exchanges of one conversation, four of them sent twice
    project = Project.objects.create(slug="support", name="Support")
    payloads = [exchange(index) for index in range(12)]
    payloads += [exchange(index) for index in (0, 4, 7, 11)]
    # when all are sent at the same moment, in reverse order of their times
    errors = at_the_same_moment(
        lambda payload: ingest_span_tree(project, payload), list(reversed(payloads))
    )
    # then
    assert errors == []
    session = Session.objects.get()
    kept = {name: getattr(session, name) for name in TOTALS}
    assert (kept["trace_count"], kept["error_count"], kept["input_tokens"]) == (12, 4, 1200)
    assert session.first_task == "Question 0"
    sessions_totals_recount([session.pk])
    session.refresh_from_db()
    assert {name: getattr(session, name) for name in TOTALS} == kept
