"""How a management command ends when a domain rule refuses: as a CommandError that says what
the API's error would (the field it names, then the message), whichever command it is."""

from collections.abc import Iterator
from contextlib import contextmanager

from django.core.management.base import CommandError

from core.errors import NON_FIELD, ApplicationError


@contextmanager
def application_errors_as_command_errors() -> Iterator[None]:
    try:
        yield
    except ApplicationError as exc:
        named = exc.field and exc.field != NON_FIELD
        raise CommandError(f"{exc.field}: {exc.message}" if named else exc.message) from exc
