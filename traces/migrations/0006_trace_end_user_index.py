# The traces of one end user, built CONCURRENTLY on PostgreSQL: ingestion goes on writing
# traces while it builds. Only traces whose context names a user are in it.

import django.db.models.fields.json
from django.db import migrations, models

import core.index_sql


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("traces", "0005_trace_deletions_and_tags"),
    ]

    operations = [
        core.index_sql.AddIndexWritable(
            model_name="trace",
            index=models.Index(
                django.db.models.fields.json.KeyTextTransform("user_id", "context"),
                models.OrderBy(models.F("id"), descending=True),
                condition=models.Q(("context__has_key", "user_id")),
                name="trace_end_user",
            ),
        ),
    ]
