"""The task is the user's request, not a worked demonstration a template opens with."""

import pytest

from tests.factories import ProjectFactory
from traces.ingest.services import ingest_payload

pytestmark = pytest.mark.django_db

DEMONSTRATION = (
    "Here is a demonstration of how to correctly accomplish this task.\n"
    "It is included to show you how to correctly use the interface.\n"
    "--- DEMONSTRATION ---\nWe're solving: make the greeting say hello.\n"
    "--- END OF DEMONSTRATION ---"
)
REAL_TASK = "We're currently solving the following issue: the date parser drops time zones."


def test_a_demonstration_before_the_real_task_is_not_the_task():
    transcript = {
        "format": "openai",
        "messages": [
            {"role": "system", "content": "You are a coding agent."},
            {"role": "user", "content": DEMONSTRATION},
            {"role": "user", "content": REAL_TASK},
            {"role": "assistant", "content": "Fixed: the parser keeps the offset now."},
        ],
    }
    trace = ingest_payload(ProjectFactory(), transcript)
    assert trace.task == REAL_TASK


def test_a_span_tree_model_call_with_a_demonstration_gives_the_real_task():
    payload = {
        "name": "run",
        "type": "agent",
        "children": [
            {
                "name": "model",
                "type": "llm",
                "input": [
                    {"role": "user", "content": DEMONSTRATION},
                    {"role": "user", "content": REAL_TASK},
                ],
                "output": "Looking at the parser.",
            }
        ],
    }
    trace = ingest_payload(ProjectFactory(), payload)
    assert trace.task == REAL_TASK


def test_an_explicit_task_wins_over_any_derivation():
    transcript = {
        "format": "openai",
        "task": "Fix the date parser.",
        "messages": [
            {"role": "user", "content": DEMONSTRATION},
            {"role": "user", "content": REAL_TASK},
        ],
    }
    trace = ingest_payload(ProjectFactory(), transcript)
    assert trace.task == "Fix the date parser."
