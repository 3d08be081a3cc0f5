"""The trace list's Stop filter: one kind, whatever each provider called it."""

import pytest

from tests.factories import TraceFactory

pytestmark = pytest.mark.django_db
URL = "/traces/"


def tasks(response) -> set[str]:
    return {trace.task for trace in response.context["page"]}


@pytest.fixture
def stopped(db):
    for reason in (
        "end_turn",
        "max_tokens",
        "length",
        "FINISH_REASON_MAX_TOKENS",
        "FinishReason.LENGTH",
        "FinishReason.STOP",
        "content_filter",
        "max_steps_exceeded",
        "sleepy",
        "",
    ):
        TraceFactory(task=f"run {reason or 'unsaid'}", stop_reason=reason)


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        (
            "truncated",
            {
                "run max_tokens",
                "run length",
                "run FINISH_REASON_MAX_TOKENS",
                "run FinishReason.LENGTH",
            },
        ),
        ("refused", {"run content_filter"}),
        ("step_limit", {"run max_steps_exceeded"}),
        ("completed", {"run end_turn", "run FinishReason.STOP"}),
        ("other", {"run sleepy"}),
        (
            "unclean",
            {
                "run max_tokens",
                "run length",
                "run FINISH_REASON_MAX_TOKENS",
                "run FinishReason.LENGTH",
                "run content_filter",
                "run max_steps_exceeded",
            },
        ),
    ],
)
def test_the_stop_filter_lists_the_runs_of_one_kind(client, annotator, stopped, kind, expected):
    client.force_login(annotator)
    response = client.get(URL, {"stop": kind})
    assert response.status_code == 200
    assert tasks(response) == expected


def test_a_truncated_run_is_marked_on_the_list(client, annotator, stopped):
    client.force_login(annotator)
    body = client.get(URL, {"stop": "truncated"}).content.decode()
    assert 'title="Truncated (token limit)">max_tokens</span>' in body
    assert '<option value="unclean">Truncated, refused, step limit or error</option>' in body


def test_an_unknown_stop_kind_is_refused_on_the_api(api_client_for, annotator):
    response = api_client_for(annotator).get("/api/traces/", {"stop": "sleepy"})
    assert response.status_code == 400
    assert "stop" in response.content.decode()
