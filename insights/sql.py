"""insights' SQL: what one database does for the charts that another does not."""

from django.db import connection
from django.db.models import Aggregate


class Percentile(Aggregate):
    """PostgreSQL's percentile_cont(fraction) WITHIN GROUP (ORDER BY expression)."""

    function = "percentile_cont"
    template = "%(function)s(%(fraction)s) WITHIN GROUP (ORDER BY %(expressions)s)"

    def __init__(self, expression, fraction: float, **extra):
        super().__init__(expression, fraction=float(fraction), **extra)


def percentiles_in_database() -> bool:
    """Whether the database computes Percentile (PostgreSQL); elsewhere the caller does."""
    return connection.vendor == "postgresql"


def build_session_jit_off() -> None:
    """In the caller's transaction, PostgreSQL compiles no query: the overview's one-off
    aggregates cost more to compile than they save (measured 2x)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL jit = off")
