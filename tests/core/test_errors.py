"""Ingest refuses input with core's InvalidInput; the API answers it exactly as it answers a
request serializer's refusal of the same field, so clients see one error shape."""

import pytest
from rest_framework.exceptions import ValidationError

from core.api_errors import exception_handler
from core.errors import NON_FIELD, ApplicationError, InvalidInput


def _answer(exc) -> tuple[int, dict]:
    response = exception_handler(exc, {})
    return response.status_code, response.data


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("children[0].name", "Every span needs a non-empty string name."),
        ("resourceSpans[0].scopeSpans[1].spans[2].trace_id", "Must be 16 bytes."),
        (NON_FIELD, "The trace is nested too deeply."),
    ],
)
def test_invalid_input_is_answered_as_the_serializer_refusal_of_that_field(field, message):
    assert _answer(InvalidInput(field, message)) == _answer(ValidationError({field: [message]}))


def test_the_answer_leads_with_the_field_and_names_it():
    status, body = _answer(InvalidInput("data[0].spans", "Must be a list of spans."))
    assert status == 400
    assert body == {
        "error": {
            "code": "invalid",
            "message": "data[0].spans: Must be a list of spans.",
            "fields": {"data[0].spans": ["Must be a list of spans."]},
        }
    }


def test_an_application_error_keeps_its_own_message():
    # Domain refusals (not a field path) say their message alone, as before.
    error = ApplicationError("No trace 'ab'.", field="trace_id", status_code=404)
    assert _answer(error) == (
        404,
        {
            "error": {
                "code": "invalid",
                "message": "No trace 'ab'.",
                "fields": {"trace_id": ["No trace 'ab'."]},
            }
        },
    )
