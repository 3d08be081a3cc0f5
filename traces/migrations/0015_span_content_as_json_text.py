# A span's input and output are kept as JSON text on PostgreSQL (core.fields.JSONTextField says
# why). Stored values are rewritten once, both columns in one pass over the spans table; on
# SQLite the columns are text already.

from django.db import migrations

import core.fields

_ALTER = (
    "ALTER TABLE traces_span "
    "ALTER COLUMN input TYPE {type} USING input::{type}, "
    "ALTER COLUMN output TYPE {type} USING output::{type}"
)


def columns_as_text(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_ALTER.format(type="text"))


def columns_as_jsonb(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_ALTER.format(type="jsonb"))


class Migration(migrations.Migration):
    dependencies = [
        ("traces", "0014_span_rows_kept_whole"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="span",
                    name="input",
                    field=core.fields.JSONTextField(blank=True, null=True),
                ),
                migrations.AlterField(
                    model_name="span",
                    name="output",
                    field=core.fields.JSONTextField(blank=True, null=True),
                ),
            ],
            database_operations=[migrations.RunPython(columns_as_text, columns_as_jsonb)],
        )
    ]
