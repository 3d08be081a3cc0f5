"""Prepared statements for the short statements ingest sends on every request.

A statement PostgreSQL keeps prepared on a connection is parsed once and, after five runs,
planned once (its generic plan, when that costs no more than planning each run): the session
upsert, the judges' stale verdicts and golden's held-out keys cost 40-130 us less of the
server's CPU a request so (bench/RESULTS.md). Only statements whose best plan does not depend
on their values are prepared: not those over the partitioned span table, whose generic plan
sets up every partition to prune them at run time, nor the trace lock.

psycopg prepares only what a cursor asks for (evalsite/databases.py sets its threshold out of
reach), and nothing when prepared statements are off (DB_TRANSACTION_POOLING: PgBouncer may
hand the next transaction another server connection).
"""

from __future__ import annotations

import functools

from django.db import connection


def prepared_cursor():
    """A cursor whose statements stay prepared on the connection, their parameters sent apart
    (PostgreSQL); a plain cursor elsewhere. Queries are logged like any other."""
    if connection.vendor != "postgresql":
        return connection.cursor()
    connection.ensure_connection()
    cursor = _preparing_cursor_class()(connection.connection)
    if connection.queries_logged:
        return connection.make_debug_cursor(cursor)
    return connection.make_cursor(cursor)


@functools.cache
def _preparing_cursor_class():
    from django.db.backends.postgresql.base import ServerBindingCursor

    class PreparingCursor(ServerBindingCursor):
        def execute(self, query, params=None, *, prepare=None, binary=None):
            prepare = True if prepare is None else prepare
            return super().execute(query, params, prepare=prepare, binary=binary)

        def _convert_query(self, query, params=None):
            # psycopg keeps the statement sent (what Django logs) only when it sends it whole.
            self._query = converted = super()._convert_query(query, params)
            return converted

    return PreparingCursor
