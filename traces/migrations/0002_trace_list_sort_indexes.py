# Each sort of the trace list gets indexes in its keyset order, whole list and one project's,
# built CONCURRENTLY on PostgreSQL: ingestion goes on writing traces while they build.

import core.indexes
import core.index_sql
from django.db import migrations, models

SORT_INDEXES = [
    core.indexes.NullsLastIndex(fields=["started_at", "-id"], name="trace_list_oldest"),
    core.indexes.NullsLastIndex(
        fields=["project", "started_at", "-id"], name="trace_project_oldest"
    ),
    models.Index(fields=["-span_count", "-id"], name="trace_list_spans"),
    models.Index(fields=["project", "-span_count", "-id"], name="trace_project_spans"),
    models.Index(fields=["-error_count", "-id"], name="trace_list_errors"),
    models.Index(fields=["project", "-error_count", "-id"], name="trace_project_errors"),
    models.Index(fields=["-cost_usd", "-id"], name="trace_list_cost"),
    models.Index(fields=["project", "-cost_usd", "-id"], name="trace_project_cost"),
    models.Index(fields=["-input_tokens", "-id"], name="trace_list_input_tokens"),
    models.Index(fields=["project", "-input_tokens", "-id"], name="trace_project_input_tokens"),
    models.Index(fields=["agent_name", "-id"], name="trace_list_agent"),
    models.Index(fields=["project", "agent_name", "-id"], name="trace_project_agent"),
]


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("traces", "0001_squashed_0019_project_log_records_unjoined"),
    ]

    operations = [
        core.index_sql.AddIndexWritable(model_name="trace", index=index)
        for index in SORT_INDEXES
    ]
