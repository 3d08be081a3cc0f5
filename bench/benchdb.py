"""Setup shared by the page benchmarks: a PostgreSQL database of their own, migrated, and the
rubrics their data is judged by."""

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
    """Point Django at the benchmark database, made if it does not exist yet, set it up and
    migrate."""
    database_ensure(database_url)
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


def bench_rubric_version(name: str, system_prompt: str, score_type: str, low=0, high=1):
    """Version 1 of the bench's own rubric `name`, made on the first fill and kept after."""
    from judges.models import Rubric, RubricVersion

    rubric, _ = Rubric.objects.get_or_create(name=name)
    version, _ = RubricVersion.objects.get_or_create(
        rubric=rubric,
        number=1,
        defaults=dict(
            system_prompt=system_prompt,
            user_template="{{ trace }}",
            score_type=score_type,
            score_min=low,
            score_max=high,
            output_format="evaluation_summary",
        ),
    )
    return version
