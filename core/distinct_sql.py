"""The distinct values of an indexed text column, read by a skip scan.

`SELECT DISTINCT` reads every row; on PostgreSQL a recursive query instead asks the column's
index for the next value past the last one, one probe a value, so a table of millions with a
handful of values (audit actions, trace tags) answers in a few probes. Table and column names
come from the model, never from input; the limit is bound.
"""

import functools

from django.db import connection


def values_distinct(model, field_name: str, limit: int = 1000) -> list[str]:
    """Up to `limit` distinct values of the model's column, in order; the column must lead an
    index for the skip scan to probe it."""
    if connection.vendor != "postgresql":
        values = model.objects.order_by(field_name).values_list(field_name, flat=True)
        return list(values.distinct()[:limit])
    with connection.cursor() as cursor:
        cursor.execute(_skip_scan_sql(model, field_name), [limit])
        return [value for (value,) in cursor.fetchall()]


@functools.cache
def _skip_scan_sql(model, field_name: str) -> str:
    table = connection.ops.quote_name(model._meta.db_table)
    column = connection.ops.quote_name(model._meta.get_field(field_name).column)
    return (
        f"WITH RECURSIVE found(value) AS ("  # noqa: S608
        f" (SELECT {column} FROM {table} ORDER BY {column} LIMIT 1)"
        f" UNION ALL"
        f" SELECT (SELECT {column} FROM {table} WHERE {column} > found.value"
        f" ORDER BY {column} LIMIT 1) FROM found WHERE found.value IS NOT NULL"
        f") SELECT value FROM found WHERE value IS NOT NULL LIMIT %s"
    )
