"""Prepared statements for the statements ingest sends on every request.

A statement PostgreSQL keeps prepared on a connection is parsed once and, after five runs, may
be planned once (its generic plan, when that costs no more than planning each run). For a
64-span OTLP request that spared 50-160 us of the server's CPU on each of the trace rows, the
session upsert, the judges' stale verdicts and golden's held-out keys (bench/RESULTS.md).
Not prepared: the trace lock, whose generic plan reads the project's traces by project alone
and filters the external ids (bench/RESULTS.md, "PostgreSQL's CPU a OTLP ingest request").

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
    cursor = preparing_cursor_class()(connection.connection)
    if connection.queries_logged:
        return connection.make_debug_cursor(cursor)
    return connection.make_cursor(cursor)


@functools.cache
def preparing_cursor_class():
    """psycopg's server-binding cursor as Django makes it, asking to prepare each statement."""
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
