"""The databases setting from the environment: DATABASE_URL (PostgreSQL with a connection pool,
or a SQLite file), else the embedded SQLite file in WAL mode (README, Configuration)."""

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from core.env import envbool, envfloat, envint


def databases_from_environment(database_url: str, var_dir: Path) -> dict:
    if database_url:
        databases = {"default": dj_database_url.parse(database_url, conn_max_age=60)}
        # PostgreSQL: each process shares a pool of at most DB_POOL_MAX_SIZE connections among its
        # threads, so processes x pool size (the connection budget, README) bounds what the server
        # sees however many threads run. A thread waits DB_POOL_TIMEOUT s for a free connection.
        if databases["default"]["ENGINE"] == "django.db.backends.postgresql" and envbool(
            "DB_POOL", True
        ):
            databases["default"]["CONN_MAX_AGE"] = 0  # the pool keeps connections, not the thread
            databases["default"].setdefault("OPTIONS", {})["pool"] = {
                "min_size": envint("DB_POOL_MIN_SIZE", 1),
                "max_size": envint("DB_POOL_MAX_SIZE", 8),
                "timeout": envfloat("DB_POOL_TIMEOUT", 30.0),
            }
        if databases["default"]["ENGINE"] == "django.db.backends.postgresql":
            # Every statement here is short: JIT compiling one whose estimate passed
            # jit_above_cost (ingest's trace lock, on an estimate of spans per trace) took 30-40
            # ms, many times the statement itself.
            databases["default"].setdefault("OPTIONS", {})["options"] = "-c jit=off"
        if envbool("DB_TRANSACTION_POOLING", False):
            _transaction_pooling(databases["default"])
        if databases["default"]["ENGINE"] == "django.db.backends.sqlite3":
            # A SQLite file shared with a worker process needs the same locking as embedded mode.
            databases["default"]["OPTIONS"] = {
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
                "transaction_mode": "IMMEDIATE",
                "timeout": 30,
            }
    else:
        databases = {
            "default": {
                "ENGINE": "django.db.backends.sqlite3",
                "NAME": var_dir / "evalsite.sqlite3",
                "OPTIONS": {
                    # WAL lets the web server read while the worker writes; IMMEDIATE avoids
                    # upgrade deadlocks between them, and the timeout waits out short locks.
                    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
                    "transaction_mode": "IMMEDIATE",
                    "timeout": 30,
                },
            }
        }
    return databases


def prepared_statements_allowed() -> bool:
    """Whether a connection may keep statements prepared: not behind PgBouncer in transaction
    mode, which may hand the next transaction another server connection."""
    return not envbool("DB_TRANSACTION_POOLING", False)


def _transaction_pooling(default: dict) -> None:
    """PgBouncer in transaction mode (docs/deploy.md) hands each transaction whichever server
    connection is free: a cursor declared outside a transaction (`.iterator()`) would be gone
    by the next fetch. No statement is prepared: core/prepared_sql.py asks only where
    prepared_statements_allowed(), and psycopg's own prepare_threshold stays None."""
    if default["ENGINE"] != "django.db.backends.postgresql":
        raise ImproperlyConfigured("DB_TRANSACTION_POOLING needs a PostgreSQL DATABASE_URL")
    if default.get("OPTIONS", {}).get("prepare_threshold") is not None:
        raise ImproperlyConfigured("DB_TRANSACTION_POOLING cannot use prepared statements")
    default["DISABLE_SERVER_SIDE_CURSORS"] = True
    # PgBouncer does not pass a client's startup options on; its connect_query turns JIT off.
    default["OPTIONS"].pop("options", None)
