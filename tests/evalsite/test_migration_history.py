"""A database that stopped partway through the squashed history is refused by migrate, with the
release to migrate through named; one that applied all of it, or none, migrates."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder

from evalsite.migration_history import histories_left_partway

pytestmark = pytest.mark.django_db


def test_a_database_migrated_with_the_squashed_history_is_not_partway():
    assert histories_left_partway(connection) == []


def test_a_database_that_applied_only_some_replaced_migrations_is_named_with_the_gap():
    # given judges migrated up to its fourth migration only, as before the squash
    recorder = MigrationRecorder(connection)
    recorder.migration_qs.filter(app="judges").delete()
    for name in ("0001_initial", "0002_judgecalibration", "0003_judgment_lease"):
        recorder.record_applied("judges", name)
    # then the gap is named, and migrate refuses before touching the graph
    assert histories_left_partway(connection) == [
        "judges: 0003_judgment_lease is applied but not 0004_seed_rubrics "
        "(22 of the 25 that 0001_squashed_0024_pairwise_judge replaces)"
    ]
    with pytest.raises(CommandError, match="Migrate it with release f026e10 first"):
        call_command("migrate", verbosity=0)


def test_a_database_that_applied_every_replaced_migration_is_not_partway():
    recorder = MigrationRecorder(connection)
    for name in ("0001_initial", "0002_role_groups", "0003_idempotency_key"):
        recorder.record_applied("accounts", name)
    assert histories_left_partway(connection) == []
