"""golden's plain SQL: the statement ingest runs on every request, written once, the table and
column names from the model."""

from django.db import connection

from core.prepared_sql import prepared_cursor
from golden.models import GoldenExample

_HELD_OUT_KEYS_SQL = (
    f"SELECT {connection.ops.quote_name(GoldenExample._meta.get_field('key').column)} "  # noqa: S608
    f"FROM {connection.ops.quote_name(GoldenExample._meta.db_table)} WHERE held_out"
)


def held_out_keys() -> list[str]:
    """The keys of the held-out examples; the ORM building this query cost more than running it,
    and ingest asks it on every request: prepared, it is neither parsed nor planned again."""
    with prepared_cursor() as cursor:
        cursor.execute(_HELD_OUT_KEYS_SQL)
        return [key for (key,) in cursor.fetchall()]
