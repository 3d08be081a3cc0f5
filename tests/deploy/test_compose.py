"""deploy/compose.yaml cannot run here (no Docker); what can be checked without it is: it is
valid YAML with the services a team runs, workers and beat go through PgBouncer in transaction
mode and the web straight to PostgreSQL within the connection budget, the names it sets are
settings evalsite reads, and bench/topology.py runs the very same commands and pool settings."""

import configparser
import re
import shlex
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from bench import topology, topology_stack

ROOT = Path(__file__).resolve().parents[2]
APP_SERVICES = ("web", "worker", "beat")
# Read by gunicorn itself (its default --workers), not by evalsite's settings.
READ_ELSEWHERE = {"WEB_CONCURRENCY"}


def _url(value: str):
    """The URL with Compose's ${VARIABLE...} references filled in, as Compose would."""
    return urlsplit(re.sub(r"\$\{[^}]*\}", "secret", value))


@pytest.fixture(scope="module")
def services() -> dict:
    return yaml.safe_load((ROOT / "deploy/compose.yaml").read_text())["services"]


@pytest.fixture(scope="module")
def pgbouncer() -> configparser.SectionProxy:
    config = configparser.ConfigParser(interpolation=None)
    config.read(ROOT / "deploy/pgbouncer/pgbouncer.ini")
    return config


def test_the_compose_file_has_what_a_team_runs(services):
    assert set(services) == {"migrate", *APP_SERVICES, "pgbouncer", "postgres", "redis"}
    assert services["web"]["command"].startswith("gunicorn evalsite.wsgi ")
    assert services["worker"]["command"].startswith("celery -A evalsite worker --pool threads")
    assert services["beat"]["command"].startswith("celery -A evalsite beat")


def test_workers_and_beat_query_through_pgbouncer_in_transaction_mode(services, pgbouncer):
    assert pgbouncer["pgbouncer"]["pool_mode"] == "transaction"
    listen_port = int(pgbouncer["pgbouncer"]["listen_port"])
    for name in ("worker", "beat"):
        environment = services[name]["environment"]
        url = _url(environment["DATABASE_URL"])
        assert (url.hostname, url.port) == ("pgbouncer", listen_port), name
        assert url.path.strip("/") in pgbouncer["databases"], name
        assert environment["DB_TRANSACTION_POOLING"] == "1", name
        assert environment["DB_POOL"] == "0", name
        assert "pgbouncer" in services[name]["depends_on"], name
    # Migrations go straight to PostgreSQL, without the transaction-pooling setting.
    migrate = services["migrate"]["environment"]
    assert _url(migrate["DATABASE_URL"]).hostname == "postgres"
    assert migrate["DB_TRANSACTION_POOLING"] == "0"


def test_the_web_queries_postgresql_straight_with_one_connection_a_worker(services):
    web = services["web"]
    environment = web["environment"]
    url = _url(environment["DATABASE_URL"])
    assert (url.hostname, url.port) == ("postgres", 5432)
    assert url.path == _url(services["worker"]["environment"]["DATABASE_URL"]).path
    # Its own pool, with prepared statements: not the settings transaction pooling needs.
    assert environment["DB_POOL"] == "1"
    assert environment["DB_TRANSACTION_POOLING"] == "0"
    # gunicorn's sync workers run one request at a time: one connection each is all they use.
    assert environment["DB_POOL_MAX_SIZE"] == "1"
    assert "--worker-class" not in web["command"] and "--threads" not in web["command"]
    assert "pgbouncer" not in web["depends_on"]
    assert web["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert web["depends_on"]["migrate"]["condition"] == "service_completed_successfully"


def test_pgbouncer_never_opens_more_than_postgresql_allows(services, pgbouncer):
    settings = pgbouncer["pgbouncer"]
    max_connections = int(
        re.search(r"max_connections=(\d+)", services["postgres"]["command"]).group(1)
    )
    pooled = int(settings["default_pool_size"]) + int(settings["reserve_pool_size"])
    assert pooled <= int(settings["max_db_connections"])
    # The web's straight connections as docs/deploy.md counts them (two containers), and a few
    # left for migrate, psql and the superuser's reserved slots.
    web = services["web"]["environment"]
    web_connections = 2 * int(web["WEB_CONCURRENCY"]) * int(web["DB_POOL_MAX_SIZE"])
    assert int(settings["max_db_connections"]) + web_connections <= max_connections - 10


def test_every_name_the_app_services_set_is_a_setting_evalsite_reads(services):
    sources = "".join(
        (ROOT / path).read_text() for path in ("evalsite/settings.py", "evalsite/databases.py")
    )
    for name in APP_SERVICES + ("migrate",):
        for variable in services[name]["environment"]:
            if variable in READ_ELSEWHERE:
                continue
            assert f'"{variable}"' in sources, f"{name} sets {variable}, which nothing reads"


def test_the_budget_in_the_docs_is_the_one_configured(pgbouncer):
    docs = (ROOT / "docs/deploy.md").read_text()
    for key in ("max_client_conn", "default_pool_size", "reserve_pool_size", "max_db_connections"):
        assert f"{key} = {pgbouncer['pgbouncer'][key]}" in docs, key


def test_the_bench_runs_the_compose_commands(services, tmp_path):
    commands = topology_stack.compose_commands(str(tmp_path), "127.0.0.1:8601")
    assert commands["web"] == shlex.split(
        services["web"]["command"].replace("0.0.0.0:8000", "127.0.0.1:8601")
    )
    assert commands["worker"] == shlex.split(services["worker"]["command"])
    assert commands["beat"] == shlex.split(
        services["beat"]["command"].replace("/var/lib/evalsite", str(tmp_path))
    )
    assert commands["beat"][-1] == str(tmp_path / "celerybeat-schedule")


def test_the_bench_sets_the_compose_database_settings(services, tmp_path):
    class Args:
        database_url = "postgres://postgres@127.0.0.1:5432/evalsite_x"
        redis_url = "redis://127.0.0.1:6379/11"
        pgbouncer_port = 6439
        judge_port = 20600

    env = topology._environment(Args, tmp_path)
    for name in ("DB_POOL", "DB_TRANSACTION_POOLING"):
        assert env[name] == services["worker"]["environment"][name]
    assert urlsplit(env["DATABASE_URL"]).port == 6439

    Args.web_through_pgbouncer = False
    web = topology.web_environment(Args, env)
    for name in ("DB_POOL", "DB_POOL_MAX_SIZE", "DB_TRANSACTION_POOLING"):
        assert web[name] == services["web"]["environment"][name], name
    assert web["DATABASE_URL"] == Args.database_url
    assert web["WEB_CONCURRENCY"] == "1"

    Args.web_through_pgbouncer = True
    through = topology.web_environment(Args, env)
    assert through["DATABASE_URL"] == env["DATABASE_URL"]
    assert (through["DB_POOL"], through["DB_TRANSACTION_POOLING"]) == ("0", "1")


def test_the_bench_pgbouncer_keeps_the_deploy_pool_settings(pgbouncer, tmp_path):
    path = topology_stack.pgbouncer_config(
        "postgres://postgres@127.0.0.1:5432/evalsite_x", 6439, tmp_path
    )
    written = configparser.ConfigParser(interpolation=None)
    written.read(path)
    changed = {"listen_addr", "listen_port", "auth_type", "auth_file", "unix_socket_dir"}
    for key, value in pgbouncer["pgbouncer"].items():
        if key not in changed:
            assert written["pgbouncer"][key] == value, key
    assert written["pgbouncer"]["listen_port"] == "6439"
    assert dict(written["databases"]) == {
        "evalsite_x": "host=127.0.0.1 port=5432 dbname=evalsite_x connect_query='SET jit = off'"
    }
    assert (tmp_path / "userlist.txt").read_text() == '"postgres" ""\n'


def test_the_bench_skips_with_a_message_when_haproxy_or_pgbouncer_is_missing(tmp_path):
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, str(ROOT / "bench/topology.py"), "--database-url", "postgres://x/y"]
        + ["--redis-url", "redis://127.0.0.1:6379/15"],
        env={"PATH": str(tmp_path)},  # neither binary is on it
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "skipped: haproxy, pgbouncer not found" in result.stdout
