"""Timestamps as agents send them: ISO 8601 strings, epoch seconds/ms/ns numbers."""

from datetime import UTC, datetime

from django.utils.dateparse import parse_datetime

from core.errors import InvalidInput


def timestamp_parse(value, field: str) -> datetime | None:
    """An aware UTC datetime, or None when absent; an InvalidInput naming the field if bad."""
    if value in (None, ""):
        return None
    if isinstance(value, bool):
        raise InvalidInput(field, "Expected an ISO 8601 time or epoch number.")
    if isinstance(value, int | float):
        seconds = float(value)
        # Epoch in ns, µs or ms is recognised by its size (1e11 s is the year 5138).
        while abs(seconds) > 1e11:
            seconds /= 1000
        try:
            return datetime.fromtimestamp(seconds, tz=UTC)
        except (OverflowError, OSError, ValueError) as exc:
            raise InvalidInput(field, "Time is out of range.") from exc
    if isinstance(value, str):
        try:
            parsed = parse_datetime(value)
        except ValueError:
            parsed = None
        if parsed is None:
            raise InvalidInput(field, f"Not an ISO 8601 time: {value[:40]!r}.")
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        return parsed.astimezone(UTC)
    raise InvalidInput(field, "Expected an ISO 8601 time or epoch number.")
