# The held-out traces alone, built CONCURRENTLY on PostgreSQL: ingestion goes on writing
# traces while it builds.

import core.index_sql
from django.db import migrations, models


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("traces", "0003_span_text_lz4"),
    ]

    operations = [
        core.index_sql.AddIndexWritable(
            model_name="trace",
            index=models.Index(
                fields=["id"], name="trace_held_out", condition=models.Q(held_out=True)
            ),
        ),
    ]
