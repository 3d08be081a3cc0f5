# Spans get a day (their trace's spans_day); on PostgreSQL the spans table is rebuilt
# partitioned by it, every row copied, in this migration's transaction.

from datetime import UTC

import django.db.models.deletion
from django.db import migrations, models
from django.db.models.functions import TruncDate

import traces.models


def traces_spans_day_fill(apps, schema_editor):
    Trace = apps.get_model("traces", "Trace")
    Trace.objects.update(spans_day=TruncDate("created_at", tzinfo=UTC))


def spans_partition(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        from traces.partition_sql import spans_table_convert

        spans_table_convert(partitioned=True)
        return
    Span = apps.get_model("traces", "Span")
    Trace = apps.get_model("traces", "Trace")
    day = Trace.objects.filter(pk=models.OuterRef("trace_id")).values("spans_day")
    Span.objects.update(trace_day=models.Subquery(day))


def spans_unpartition(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        from traces.partition_sql import spans_table_convert

        spans_table_convert(partitioned=False)


class Migration(migrations.Migration):
    dependencies = [
        ("traces", "0011_session_totals"),
    ]

    operations = [
        migrations.AddField(
            model_name="trace",
            name="spans_day",
            field=models.DateField(default=traces.models.utc_today),
        ),
        migrations.RunPython(traces_spans_day_fill, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="trace",
            index=models.Index(fields=["spans_day", "project"], name="trace_spans_day"),
        ),
        migrations.AlterField(
            model_name="span",
            name="trace",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="spans",
                to="traces.trace",
            ),
        ),
        migrations.RemoveConstraint(
            model_name="span",
            name="span_unique_per_trace",
        ),
        migrations.AddField(
            model_name="span",
            name="trace_day",
            field=models.DateField(default=traces.models.utc_today),
        ),
        migrations.AddConstraint(
            model_name="span",
            constraint=models.UniqueConstraint(
                fields=("trace", "span_id", "trace_day"), name="span_unique_per_trace"
            ),
        ),
        migrations.RunPython(spans_partition, spans_unpartition),
    ]
