"""A prepared cursor's statements stay prepared on the connection and are logged like any other."""

import pytest
from django.db import DatabaseError, connection, transaction
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from core.prepared_sql import prepared_cursor

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL prepares"),
]

STATEMENT = "SELECT count(DISTINCT app_label) FROM django_content_type WHERE app_label = ANY(%s)"


def _prepared() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [statement for (statement,) in cursor.fetchall()]


def test_a_prepared_cursor_prepares_its_statement_once_and_logs_it():
    with CaptureQueriesContext(connection) as queries:
        for apps in (["traces"], ["judges", "golden"]):
            with prepared_cursor() as cursor:
                cursor.execute(STATEMENT, [apps])
                assert cursor.fetchone()[0] == len(apps)
    sent = STATEMENT.replace("%s", "$1")  # as PostgreSQL receives it, the values apart
    assert [query["sql"] for query in queries.captured_queries] == [sent] * 2
    assert _prepared().count(sent) == 1


def test_other_cursors_prepare_nothing():
    for _ in range(10):
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 + 1")
    assert "SELECT 1 + 1" not in _prepared()


def test_the_connection_counts_no_other_statement():
    # With a threshold set psycopg keeps every statement's text to count its runs (memory a
    # pooled connection holds); None is its documented "off", restored after each prepared one.
    with prepared_cursor() as cursor:
        cursor.execute(STATEMENT, [["traces"]])
    assert connection.connection.prepare_threshold is None


def test_a_failed_prepared_statement_leaves_preparing_off():
    with pytest.raises(DatabaseError), transaction.atomic(), prepared_cursor() as cursor:
        cursor.execute("SELECT 1 / %s", [0])
    assert connection.connection.prepare_threshold is None


@override_settings(DB_PREPARED_STATEMENTS=False)
def test_nothing_is_prepared_where_prepared_statements_are_off():
    with prepared_cursor() as cursor:
        cursor.execute(STATEMENT, [["traces"]])
        assert cursor.fetchone()[0] == 1
    assert STATEMENT.replace("%s", "$1") not in _prepared()
