# A trace's failed tool calls known only from the messages handed back to the model, kept apart
# so ingest's recount of its spans adds them back (metrics.told_failures). A constant default:
# PostgreSQL adds the column without rewriting the table.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("traces", "0006_trace_end_user_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="trace",
            name="told_error_count",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
    ]
