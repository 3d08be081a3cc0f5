"""Setup shared by the page benchmarks: a PostgreSQL database of their own, migrated."""

import os


def database_ensure(url: str) -> None:
    """Create the benchmark's database when it does not exist yet."""
    import psycopg

    name = url.rsplit("/", 1)[1]
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def django_setup(database_url: str, var_dir: str) -> None:
    """Point Django at the benchmark database, set it up and migrate."""
    os.environ.update(
        DATABASE_URL=database_url,
        EVALSITE_VAR_DIR=var_dir,
        DJANGO_SETTINGS_MODULE="evalsite.settings",
        LOG_LEVEL="WARNING",
        ALLOWED_HOSTS="testserver,127.0.0.1,localhost",
    )
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
