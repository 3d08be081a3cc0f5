"""Behind PgBouncer in transaction mode a connection may change server between transactions:
no server-side cursors, no prepared statements (deploy/, docs/deploy.md)."""

import configparser
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection

from evalsite.databases import databases_from_environment, prepared_statements_allowed

URL = "postgres://evalsite@pgbouncer:6432/evalsite"


def _default(monkeypatch, **env) -> dict:
    for name in ("DB_POOL", "DB_TRANSACTION_POOLING"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return databases_from_environment(URL, Path("/nonexistent"))["default"]


def test_transaction_pooling_turns_server_side_cursors_off(monkeypatch):
    default = _default(monkeypatch, DB_TRANSACTION_POOLING="1", DB_POOL="0")
    assert default["DISABLE_SERVER_SIDE_CURSORS"] is True
    # Django leaves psycopg's prepared statements off unless OPTIONS asks for them.
    assert default.get("OPTIONS", {}).get("prepare_threshold") is None
    assert not prepared_statements_allowed()
    assert "pool" not in default.get("OPTIONS", {})
    assert default["CONN_MAX_AGE"] == 60  # a client connection to PgBouncer is cheap to keep


def test_a_direct_connection_keeps_server_side_cursors(monkeypatch):
    default = _default(monkeypatch)
    assert default.get("DISABLE_SERVER_SIDE_CURSORS", False) is False
    assert default["OPTIONS"]["pool"]["max_size"] == 8
    # psycopg prepares only the statements a cursor asks for (core/prepared_sql.py), and
    # counts no other.
    assert "prepare_threshold" not in default["OPTIONS"]
    assert prepared_statements_allowed()


def test_transaction_pooling_with_the_process_pool_also_works(monkeypatch):
    default = _default(monkeypatch, DB_TRANSACTION_POOLING="1")
    assert default["DISABLE_SERVER_SIDE_CURSORS"] is True
    assert default["CONN_MAX_AGE"] == 0


def test_transaction_pooling_needs_postgresql(monkeypatch):
    monkeypatch.setenv("DB_TRANSACTION_POOLING", "1")
    with pytest.raises(ImproperlyConfigured, match="DB_TRANSACTION_POOLING"):
        databases_from_environment("sqlite:////tmp/x.sqlite3", Path("/nonexistent"))


def test_direct_connections_start_with_jit_off(monkeypatch):
    assert _default(monkeypatch)["OPTIONS"]["options"] == "-c jit=off"


def test_pgbouncer_turns_jit_off_for_the_connections_it_opens(monkeypatch):
    # PgBouncer does not pass startup options on, so the client sends none and its
    # connect_query does the same.
    default = _default(monkeypatch, DB_TRANSACTION_POOLING="1", DB_POOL="0")
    assert "options" not in default.get("OPTIONS", {})
    config = configparser.ConfigParser(interpolation=None)
    config.read(Path(__file__).resolve().parents[2] / "deploy/pgbouncer/pgbouncer.ini")
    assert "connect_query='SET jit = off'" in config["databases"]["evalsite"]


@pytest.mark.django_db
def test_the_running_connection_has_jit_off():
    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone()[0] == "off"
