"""Databases whose migration history stopped partway through what a squashed migration replaces.

Each app's migrations up to release f026e10 were squashed into one, and the replaced files are
gone: a database that applied all of them takes the squashed migration as applied and a new one
runs it, but one that applied only some cannot be continued from here. It is migrated with
release f026e10 first (docs/upgrading.md).
"""

from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder

UPGRADE_THROUGH = "f026e10"


def histories_left_partway(connection) -> list[str]:
    """One line per squashed migration whose replaced migrations the database applied only
    some of: the app, the last one applied and the first one missing."""
    recorder = MigrationRecorder(connection)
    if not recorder.has_table():
        return []
    applied = set(recorder.applied_migrations())
    found = []
    for (app, name), migration in sorted(MigrationLoader(None).replacements.items()):
        done = [key for key in migration.replaces if key in applied]
        if not done or len(done) == len(migration.replaces):
            continue
        missing = [key for key in migration.replaces if key not in applied]
        found.append(
            f"{app}: {done[-1][1]} is applied but not {missing[0][1]} "
            f"({len(missing)} of the {len(migration.replaces)} that {name} replaces)"
        )
    return found


def upgrade_advice(partway: list[str]) -> str:
    return (
        "This database stopped partway through migrations that this release has squashed:\n  "
        + "\n  ".join(partway)
        + f"\nMigrate it with release {UPGRADE_THROUGH} first (git checkout {UPGRADE_THROUGH}; "
        "python manage.py migrate), then with this release. See docs/upgrading.md."
    )
