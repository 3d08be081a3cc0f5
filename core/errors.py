"""The errors a domain rule raises, and the one JSON error shape every API endpoint answers
with: {"error": {"code", "message", "fields"}}. The API's handler that answers them is
core/api_errors.py: services (and the workers that run them) need no REST framework."""

from functools import cache
from http import HTTPStatus

from django.db import InterfaceError, OperationalError

from core.publish import publish_errors

# Seconds a client is asked to wait after an outage answer; exporters retry a 503 after it.
OUTAGE_RETRY_AFTER_SECONDS = 5
OUTAGE_MESSAGE = (
    "The database or the broker is unavailable for a moment. Retry after a few seconds: a "
    "retried request is stored once, even if this one got through."
)


class ApplicationError(Exception):
    """A domain rule refused the request; views let it propagate to the handler below."""

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        code: str = "invalid",
        status_code: int = HTTPStatus.BAD_REQUEST,
    ):
        super().__init__(message)
        self.message = message
        self.field = field
        self.code = code
        self.status_code = status_code

    def answer_message(self) -> str:
        """The `message` of the JSON error."""
        return self.message

    def field_message(self) -> str:
        """The message led by the field it names (`baseline: No eval run named v9.`); a
        refusal of no field, or of the whole input, is its message alone."""
        named = self.field and self.field != NON_FIELD
        return f"{self.field}: {self.message}" if named else self.message


NON_FIELD = "non_field_errors"


class InvalidInput(ApplicationError):
    """Input refused at a named place, a field path such as `children[0].name` (NON_FIELD for
    the whole input), answered as a request serializer's refusal is: the path leads the
    message (`children[0].name: Every span needs a name.`) and `fields` names it. Parsers
    (traces/ingest) raise it; it needs no request."""

    def __init__(self, field: str, message: str):
        super().__init__(message, field=field)

    def answer_message(self) -> str:
        return self.field_message()


def error_body(code: str, message: str, fields: dict | None = None) -> dict:
    return {"error": {"code": code, "message": message, "fields": fields or {}}}


def is_outage(exc: BaseException | None) -> bool:
    """An error that says the database or the broker is unreachable, not that the request
    was wrong: a connection refused, closed or lost, a server shutting down, a pool timeout.
    Errors about the data itself (integrity, a bad value) are not outages."""
    # DataError, IntegrityError and ProgrammingError are the request's or the code's fault.
    return isinstance(exc, (*_database_outage_errors(), *publish_errors()))


@cache
def _database_outage_errors() -> tuple[type[Exception], ...]:
    """Django's, and psycopg's own: COPY (the `rows.py` modules) runs on the raw driver
    cursor, whose errors Django does not wrap."""
    try:
        import psycopg
    except ImportError:  # SQLite-only installs
        return (OperationalError, InterfaceError)
    return (OperationalError, InterfaceError, psycopg.OperationalError, psycopg.InterfaceError)


def outage_headers() -> dict:
    return {"Retry-After": str(OUTAGE_RETRY_AFTER_SECONDS)}
