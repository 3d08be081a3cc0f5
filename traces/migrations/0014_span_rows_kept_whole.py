# Span rows up to a page's size are stored whole, uncompressed (traces.span_partitions says
# why); rows already stored stay as they are.

from django.db import migrations


def storage_set(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        from traces.partition_sql import spans_storage_set

        spans_storage_set()


def storage_reset(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        from traces.partition_sql import spans_storage_set

        spans_storage_set(reset=True)


class Migration(migrations.Migration):
    dependencies = [
        ("traces", "0013_foreign_key_indexes_covered"),
    ]

    operations = [migrations.RunPython(storage_set, storage_reset)]
