"""Tool errors common coding agents write in prose are failures by default."""

import pytest

from tests.factories import ProjectFactory
from traces.ingest.failures import text_failure
from traces.ingest.services import ingest_span_tree
from traces.models import Span, SpanStatus

pytestmark = pytest.mark.django_db

PROSE_ERRORS = [
    "Your proposed edit has introduced new syntax error(s). Please read this error message "
    "carefully and then retry editing the file.\nERRORS:\n- E999 IndentationError",
    "Your edit was not applied (file not modified): the old text was not found.",
    "No replacement was performed, `old_str` did not appear verbatim in /repo/app.py.",
    "The path /repo/missing.py does not exist. Please provide a valid path.",
    "bash: pytset: command not found",
    "<tool_use_error>File has not been read yet. Read it first before writing to it."
    "</tool_use_error>",
    "Invalid `view_range` parameter: [40, 20].",
    "Command timed out after 120 seconds.",
]
ORDINARY = [
    "File updated. Please review the changes and make sure they are correct.",
    "The tests passed: 12 passed in 0.8s.",
    "Your proposed edit looks fine to me.",
]


@pytest.mark.parametrize("text", PROSE_ERRORS)
def test_prose_errors_of_coding_agents_are_failures(text):
    assert text_failure(text)


def prose_error_step() -> dict:
    """A run whose one tool step's result is an error written as prose."""
    step = {"name": "edit", "type": "tool", "input": {"line": 3}, "output": PROSE_ERRORS[0]}
    return {"name": "run", "type": "agent", "children": [step]}


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_prose_is_no_failure(text):
    assert text_failure(text) == ""


def test_a_stored_tool_step_with_such_a_result_is_marked_failed():
    ingest_span_tree(ProjectFactory(), prose_error_step())
    assert Span.objects.get(name="edit").status == SpanStatus.ERROR


def test_a_project_that_turns_text_detection_off_keeps_them_as_results():
    ingest_span_tree(ProjectFactory(tool_error_text_detection=False), prose_error_step())
    assert Span.objects.get(name="edit").status != SpanStatus.ERROR
