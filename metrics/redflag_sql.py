"""The red-flag store's plain SQL: statements the ORM would build on every verdict, written once.
No row points at a red flag and no signal hears its delete, so these are the ORM's own effects."""

from django.db import connection
from django.utils import timezone

from metrics.models import RedFlag, RedFlagCheck

_FLAGS = RedFlag._meta.db_table
_CHECKS = RedFlagCheck._meta.db_table


def trace_checked(trace_id: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT 1 FROM {_CHECKS} WHERE trace_id = %s", [trace_id])  # noqa: S608
        return cursor.fetchone() is not None


def trace_flags_delete(trace_id: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {_FLAGS} WHERE trace_id = %s", [trace_id])  # noqa: S608


def trace_check_record(trace_id: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {_CHECKS} (trace_id, checked_at) VALUES (%s, %s) "  # noqa: S608
            "ON CONFLICT (trace_id) DO UPDATE SET checked_at = EXCLUDED.checked_at",
            [trace_id, connection.ops.adapt_datetimefield_value(timezone.now())],
        )
