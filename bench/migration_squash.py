"""Whether the squashed migrations build the database the replaced history built.

Database A is migrated by the history of release f026e10 (a `git archive` of that commit, run
with this virtualenv), database B by this checkout's squashed migrations, on PostgreSQL and on
SQLite. Their schemas (pg_dump --schema-only, or SQLite's sqlite_master, lines normalized and
sorted) and the rows every table holds once migrated (the seeded rubrics, judge config, role
groups, content types and permissions; timestamps left out) must be the same. Then this checkout
migrates A: nothing to apply, every migration shown applied, and no model change unmigrated.

    python bench/migration_squash.py [--postgres postgres://postgres@127.0.0.1:5432]
        [--before f026e10] [--prefix evalsite_squash]

Prints each migrate's time with the load average; exits 1 on any difference.
"""

import argparse
import difflib
import os
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = str(ROOT / ".venv" / "bin" / "python")
# Rows that differ between any two migrations of the same history: when they ran.
LEFT_OUT_TABLES = {"django_migrations"}
# Content types (and so permissions) get their ids in the order the migrations' state lists the
# models, which squashing changes: these compare by what they name.
BY_NATURAL_KEY = {
    "django_content_type": "SELECT app_label, model FROM django_content_type",
    "auth_permission": "SELECT p.codename, p.name, c.app_label, c.model FROM auth_permission p "
    "JOIN django_content_type c ON c.id = p.content_type_id",
}


def load() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 1)[0]


def manage(checkout: Path, database_url: str, *args: str) -> str:
    env = dict(os.environ, DATABASE_URL=database_url, LOG_LEVEL="WARNING")
    done = subprocess.run(
        [PYTHON, "manage.py", *args], cwd=checkout, env=env, capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"{checkout}: manage.py {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout


def migrate_timed(checkout: Path, database_url: str, label: str) -> None:
    before = load()
    started = time.perf_counter()
    manage(checkout, database_url, "migrate", "--verbosity", "0")
    print(f"{label}: migrated in {time.perf_counter() - started:.1f} s (load {before})")


def old_checkout(commit: str, into: Path) -> Path:
    archive = into / "before.tar"
    subprocess.run(["git", "archive", "--output", str(archive), commit], cwd=ROOT, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "before", filter="data")
    return into / "before"


def postgres_recreate(server: str, name: str) -> str:
    import psycopg

    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"{server}/{name}"


def postgres_schema(url: str) -> list[str]:
    dump = subprocess.run(
        ["pg_dump", "--schema-only", "--no-owner", "--no-privileges", "--no-comments", url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return _normalized(
        line
        for line in dump.splitlines()
        if not line.startswith(("--", "SET ", "SELECT pg_catalog.set_config", "\\"))
    )


def _normalized(lines) -> list[str]:
    # Sorted, so columns added later by AddField compare equal to columns created in place.
    return sorted(line.strip().rstrip(",") for line in lines if line.strip())


def _rows(conn, tables_query: str, columns_kept) -> dict[str, list[tuple]]:
    """The rows of each table `tables_query` names, sorted, with the columns
    `columns_kept(table)` names."""
    tables = {row[0] for row in conn.execute(tables_query)}
    found = {}
    for table in sorted(tables - LEFT_OUT_TABLES):
        if table in BY_NATURAL_KEY:
            query = BY_NATURAL_KEY[table]
        else:
            names = ", ".join(f'"{column}"' for column in sorted(columns_kept(table)))
            query = f'SELECT {names} FROM "{table}"'
        found[table] = sorted(conn.execute(query).fetchall(), key=repr)
    return found


def postgres_rows(url: str) -> dict[str, list[tuple]]:
    import psycopg

    with psycopg.connect(url) as conn:
        return _rows(
            conn,
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition",
            lambda table: [
                row[0]
                for row in conn.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_name = %s "
                    "AND data_type NOT LIKE 'timestamp%%'",
                    [table],
                )
            ],
        )


def sqlite_schema(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        statements = [row[0] for row in conn.execute("SELECT sql FROM sqlite_master")]
    return _normalized(
        part for statement in statements if statement for part in _columns(statement)
    )


def _columns(statement: str) -> list[str]:
    """A CREATE TABLE's columns and constraints one a line (Django writes them on one line)."""
    head, paren, body = statement.partition("(")
    if not statement.startswith("CREATE TABLE") or not paren:
        return [statement]
    parts, depth, current = [], 0, ""
    for char in body.rstrip()[:-1]:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [head, *parts, current]


def sqlite_rows(path: Path) -> dict[str, list[tuple]]:
    with sqlite3.connect(path) as conn:
        return _rows(
            conn,
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "AND name NOT LIKE 'traces_search_fts_%'",
            lambda table: [
                row[1]
                for row in conn.execute(f'PRAGMA table_info("{table}")')
                if row[2].lower() != "datetime"
            ],
        )


def differences(label: str, before, after) -> list[str]:
    if before == after:
        if isinstance(after, dict):
            held = ", ".join(f"{table} {len(rows)}" for table, rows in after.items() if rows)
            print(f"{label}: identical ({len(after)} tables; rows in {held})")
        else:
            print(f"{label}: identical ({len(after)} lines)")
        return []
    if isinstance(before, dict):
        lines = [
            f"{table}: {len(before.get(table, []))} rows before, {len(after.get(table, []))} after"
            for table in sorted(set(before) | set(after))
            if before.get(table) != after.get(table)
        ]
    else:
        lines = list(difflib.unified_diff(before, after, "before", "squashed", lineterm=""))
    print(f"{label}: DIFFERENT\n" + "\n".join(lines[:80]))
    return lines


def migrated_again_as_no_op(url: str) -> list[str]:
    problems = []
    if "No migrations to apply." not in manage(ROOT, url, "migrate"):
        problems.append("migrate on the old history's database applied something")
    if "[ ]" in manage(ROOT, url, "showmigrations"):
        problems.append("showmigrations lists an unapplied migration")
    manage(ROOT, url, "makemigrations", "--check", "--dry-run")
    print("this checkout on the old history's database: " + ("; ".join(problems) or "no-op"))
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--before", default="f026e10")
    parser.add_argument("--prefix", default="evalsite_squash")
    options = parser.parse_args()
    problems = []
    with tempfile.TemporaryDirectory() as scratch:
        before = old_checkout(options.before, Path(scratch))
        old = postgres_recreate(options.postgres, f"{options.prefix}_old")
        new = postgres_recreate(options.postgres, f"{options.prefix}_new")
        migrate_timed(before, old, f"PostgreSQL, {options.before}'s history")
        migrate_timed(ROOT, new, "PostgreSQL, squashed")
        problems += differences("PostgreSQL schema", postgres_schema(old), postgres_schema(new))
        problems += differences("PostgreSQL rows", postgres_rows(old), postgres_rows(new))
        problems += migrated_again_as_no_op(old)
        old_file, new_file = Path(scratch, "old.sqlite3"), Path(scratch, "new.sqlite3")
        migrate_timed(before, f"sqlite:///{old_file}", f"SQLite, {options.before}'s history")
        migrate_timed(ROOT, f"sqlite:///{new_file}", "SQLite, squashed")
        problems += differences("SQLite schema", sqlite_schema(old_file), sqlite_schema(new_file))
        problems += differences("SQLite rows", sqlite_rows(old_file), sqlite_rows(new_file))
        problems += migrated_again_as_no_op(f"sqlite:///{old_file}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
