# The project and session foreign keys of traces and sessions lose their own indexes: a
# composite index starting with the same column serves every lookup, and each index costs
# every trace write. Only the indexes are dropped; the constraints stay as they are (an
# AlterField would drop and re-check them, reading every trace).

import django.db.models.deletion
from django.db import migrations, models

# Django's names for these foreign keys' indexes (schema_editor._create_index_name).
DROPPED = [
    ("traces_session_project_id_1df8e0c9", "traces_session", "project_id"),
    ("traces_trace_project_id_0a08accf", "traces_trace", "project_id"),
    ("traces_trace_session_id_80c32dc2", "traces_trace", "session_id"),
]


class Migration(migrations.Migration):
    dependencies = [
        ("traces", "0012_spans_by_day"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    f'DROP INDEX IF EXISTS "{name}"',
                    f'CREATE INDEX IF NOT EXISTS "{name}" ON "{table}" ("{column}")',
                )
                for name, table, column in DROPPED
            ],
            state_operations=[
                migrations.AlterField(
                    model_name="session",
                    name="project",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="sessions",
                        to="traces.project",
                    ),
                ),
                migrations.AlterField(
                    model_name="trace",
                    name="project",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="traces",
                        to="traces.project",
                    ),
                ),
                migrations.AlterField(
                    model_name="trace",
                    name="session",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="traces",
                        to="traces.session",
                    ),
                ),
            ],
        ),
    ]
