"""The rows the migrations seed: the built-in rubrics and the default judge config.

A transactional test flushes every table after it, so a test that comes later puts them back
from here; this is the one place in the tests that names a seeding migration.
"""

import importlib

from django.apps import apps

SEEDING_MIGRATIONS = (
    "judges.migrations.0004_seed_rubrics",
    "judges.migrations.0007_seed_expected_behavior",
)


def built_in_rubrics_seed() -> None:
    """Seed the built-in rubrics and the default config again; rows still there are kept."""
    for migration in SEEDING_MIGRATIONS:
        importlib.import_module(migration).seed(apps, None)
