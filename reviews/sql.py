"""reviews' raw SQL: table and column names from the models, values always bound."""

import functools

from django.db import connection

from reviews.models import AuditEvent


def audit_actions_distinct() -> list[str]:
    """Every action in the audit log, sorted. On PostgreSQL one index probe per action (a
    skip scan of audit_action_newest) instead of reading every event to find the few actions."""
    if connection.vendor != "postgresql":
        return list(
            AuditEvent.objects.order_by("action").values_list("action", flat=True).distinct()
        )
    with connection.cursor() as cursor:
        cursor.execute(_actions_sql())
        return [action for (action,) in cursor.fetchall()]


@functools.cache
def _actions_sql() -> str:
    table = connection.ops.quote_name(AuditEvent._meta.db_table)
    action = connection.ops.quote_name(AuditEvent._meta.get_field("action").column)
    # Table and column names come from the model, never from input.
    return (
        f"WITH RECURSIVE actions(name) AS ("  # noqa: S608
        f" (SELECT {action} FROM {table} ORDER BY {action} LIMIT 1)"
        f" UNION ALL"
        f" SELECT (SELECT {action} FROM {table} WHERE {action} > actions.name"
        f" ORDER BY {action} LIMIT 1) FROM actions WHERE actions.name IS NOT NULL"
        f") SELECT name FROM actions WHERE name IS NOT NULL"
    )
