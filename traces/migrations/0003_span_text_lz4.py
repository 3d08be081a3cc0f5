# Span text compressed with lz4 where the server has it (traces.partition_sql says why). Stored
# rows keep their compression until rewritten; PostgreSQL reads both.

from django.db import migrations


def text_lz4(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        from traces.partition_sql import span_text_compression_set

        span_text_compression_set("lz4")


def text_pglz(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        from traces.partition_sql import span_text_compression_set

        span_text_compression_set("pglz")


class Migration(migrations.Migration):
    dependencies = [
        ("traces", "0002_trace_list_sort_indexes"),
    ]

    operations = [migrations.RunPython(text_lz4, text_pglz)]
