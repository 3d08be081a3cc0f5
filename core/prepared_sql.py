"""Cursors that send parameters apart from the statement (PostgreSQL), and keep the statements
ingest sends on every request prepared.

Django's default cursor quotes every value into the SQL text, which costs more than the
statement itself for ingest's repeated ones. A statement PostgreSQL keeps prepared on a
connection is parsed once and, after five runs, may be planned once (its generic plan, when that
costs no more than planning each run). For a 64-span OTLP request that spared 50-160 us of the
server's CPU on each of the trace rows, the session upsert, the judges' stale verdicts and
golden's held-out keys (bench/RESULTS.md). Not prepared: the trace lock, whose generic plan reads
the project's traces by project alone and filters the external ids (bench/RESULTS.md,
"PostgreSQL's CPU a OTLP ingest request").

psycopg prepares only what this cursor asks for, and nothing when prepared statements are off
(DB_TRANSACTION_POOLING: PgBouncer may hand the next transaction another server connection).
A connection's prepare_threshold stays None, psycopg's "off", except while this cursor sends:
with it set, psycopg counts every statement the connection runs, keeping each one's SQL text
(up to 100 a connection), which cost a judge worker's pool 4 MiB (bench/RESULTS.md).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from psycopg.pq import Format

# Any threshold but None lets psycopg prepare; the cursor asks for its statement explicitly.
_PREPARING = 0


def binding_cursor(binary_results: bool = False, *, prepared: bool = False):
    """A cursor that sends parameters apart from the statement (PostgreSQL); a plain cursor
    elsewhere. Queries are logged like any other.

    With binary_results, rows come in PostgreSQL's binary form: psycopg reads timestamps and
    numbers in C, where Django's text loader parses each timestamp in Python (about a tenth of
    a small request's CPU went to the times of the rows ingest reads back). The connection's
    time zone is Django's, so the values are the ones the text form gives. With prepared, each
    statement stays prepared on the connection."""
    # The connection looked up once: each use of django.db.connection looks it up again.
    db = connections[DEFAULT_DB_ALIAS]
    if db.vendor != "postgresql":
        return db.cursor()
    from django.db.backends.postgresql.base import ServerBindingCursor

    db.ensure_connection()
    cursor_class = preparing_cursor_class() if prepared else ServerBindingCursor
    cursor = cursor_class(db.connection)
    if binary_results:
        cursor.format = Format.BINARY
    if db.queries_logged:
        return db.make_debug_cursor(cursor)
    return db.make_cursor(cursor)


def prepared_cursor():
    """binding_cursor whose statements stay prepared on the connection."""
    return binding_cursor(prepared=True)


def int_array(values: Iterable[int]) -> str:
    """Integers in PostgreSQL's text form of an array, for a `%s::bigint[]` parameter: psycopg
    dumps a list by inspecting each element, a third of the Python a small statement costs."""
    return "{" + ",".join(map(str, values)) + "}"


@functools.cache
def preparing_cursor_class():
    """psycopg's server-binding cursor as Django makes it, asking to prepare each statement."""
    from django.db.backends.postgresql.base import ServerBindingCursor

    class PreparingCursor(ServerBindingCursor):
        def execute(self, query, params=None, *, prepare=None, binary=None):
            if not settings.DB_PREPARED_STATEMENTS or prepare is False:
                return super().execute(query, params, prepare=False, binary=binary)
            self.connection.prepare_threshold = _PREPARING
            try:
                return super().execute(query, params, prepare=True, binary=binary)
            finally:
                self.connection.prepare_threshold = None

        def _convert_query(self, query, params=None):
            # psycopg keeps the statement sent (what Django logs) only when it sends it whole.
            self._query = converted = super()._convert_query(query, params)
            return converted

    return PreparingCursor
