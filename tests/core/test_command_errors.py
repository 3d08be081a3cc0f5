"""A management command reports a domain refusal as the API would: the field it names, then
the message; a refusal that names no field is its message alone."""

import pytest
from django.core.management.base import CommandError

from core.command_errors import application_errors_as_command_errors
from core.errors import NON_FIELD, ApplicationError, InvalidInput


@pytest.mark.parametrize(
    ("refusal", "shown"),
    [
        (
            ApplicationError("No eval run named v9.", field="baseline"),
            "baseline: No eval run named v9.",
        ),
        (ApplicationError("Nothing to judge."), "Nothing to judge."),
        (InvalidInput(NON_FIELD, "must be a JSON object"), "must be a JSON object"),
    ],
)
def test_a_refusal_ends_the_command_with_what_it_names(refusal, shown):
    with pytest.raises(CommandError) as raised, application_errors_as_command_errors():
        raise refusal

    assert str(raised.value) == shown
    assert raised.value.__cause__ is refusal


def test_other_errors_pass_through():
    with pytest.raises(KeyError), application_errors_as_command_errors():
        raise KeyError("run")
