"""How a management command ends when a domain rule refuses: as a CommandError that says what
the API's error would (the field it names, then the message), whichever command it is."""

from collections.abc import Iterator
from contextlib import contextmanager

from django.core.management.base import CommandError

from core.errors import ApplicationError


@contextmanager
def application_errors_as_command_errors() -> Iterator[None]:
    try:
        yield
    except ApplicationError as exc:
        raise CommandError(exc.field_message()) from exc
