"""Django's migrate, which first refuses a database it cannot continue (evalsite.migration_history
says which), naming the release to migrate through instead of failing in the migration graph."""

from django.core.management.base import CommandError
from django.core.management.commands.migrate import Command as DjangoMigrate
from django.db import connections

from evalsite.migration_history import histories_left_partway, upgrade_advice


class Command(DjangoMigrate):
    def handle(self, *args, **options):
        partway = histories_left_partway(connections[options["database"]])
        if partway:
            raise CommandError(upgrade_advice(partway))
        return super().handle(*args, **options)
