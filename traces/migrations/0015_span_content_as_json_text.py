# A span's attributes, input and output are kept as JSON text on PostgreSQL
# (core.fields.JSONTextField says why). Stored values are rewritten once, all three columns in
# one pass over the spans table; on SQLite the columns are text already.

from django.db import migrations

import core.fields

_COLUMNS = ("attributes", "input", "output")


def _alter(type_name: str) -> str:
    changes = ", ".join(
        f"ALTER COLUMN {column} TYPE {type_name} USING {column}::{type_name}"
        for column in _COLUMNS
    )
    return f"ALTER TABLE traces_span {changes}"


def columns_as_text(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_alter("text"))


def columns_as_jsonb(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_alter("jsonb"))


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
                migrations.AlterField(
                    model_name="span",
                    name="attributes",
                    field=core.fields.JSONTextField(blank=True, default=dict),
                ),
            ],
            database_operations=[migrations.RunPython(columns_as_text, columns_as_jsonb)],
        )
    ]
